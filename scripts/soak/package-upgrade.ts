// The packaged node's upgrade judged (issue 35: "a package upgrade of one node, the .deb, under load"): after
// `apt-get install ./newer.deb` the node runs the newer version: dpkg has it, the agent answering is a new process
// started on the newer files and calls itself that version, and the socket nova connects to is the one of before.
// Pure; the soak reads what it judges (scripts/soak/package-node.ts).

export interface UpgradeSeen {
  /** The newer .deb's Version (dpkg-deb -f FILE Version). */
  readonly expected: string;
  /** apt-get install's exit code. */
  readonly aptCode: number;
  /** `dpkg-query -W -f '${Version}' ferry` after it (undefined: not installed). */
  readonly installed?: string;
  /** The same for nova's client, python3-ferry-agent. */
  readonly client?: string;
  /** The `version` label of ferry_agent_build_info on the agent's /metrics after it (undefined: no answer). */
  readonly agentVersion?: string;
  /** ferry-agent.service's MainPID before and after (0: not running). */
  readonly pidBefore?: number;
  readonly pidAfter?: number;
  /** The socket's inode and ferry-agent.socket's ActiveEnterTimestampMonotonic, before and after. */
  readonly socketBefore?: string;
  readonly socketAfter?: string;
}

/** The upstream part of a Debian version (no epoch, no revision or suffix): what `ferry --version` says. */
export function upstreamVersion(debian: string): string {
  return debian.replace(/^\d+:/, '').replace(/[-+~].*$/, '');
}

/** What is wrong with the node after its upgrade; [] when it runs the newer version behind the same socket. */
export function upgradeProblems(seen: UpgradeSeen): string[] {
  const problems: string[] = [];
  if (seen.aptCode !== 0) problems.push(`apt-get install of the newer .debs exited ${seen.aptCode}`);
  for (const [name, version] of [['ferry', seen.installed], ['python3-ferry-agent', seen.client]] as const) {
    if (version !== seen.expected) problems.push(`${name} is ${version ?? 'not installed'} after the upgrade, not ${seen.expected}`);
  }
  const upstream = upstreamVersion(seen.expected);
  if (seen.agentVersion === undefined) problems.push('the agent did not answer /metrics after the upgrade');
  else if (seen.agentVersion !== upstream) problems.push(`the agent answers version ${seen.agentVersion} (ferry_agent_build_info), not ${upstream} (the newer package's)`);
  if (!seen.pidAfter) problems.push(`no agent runs after the upgrade (MainPID ${seen.pidAfter ?? 'unknown'})`);
  else if (seen.pidBefore === seen.pidAfter) problems.push(`the agent was not restarted onto the newer files (MainPID ${seen.pidAfter} before and after)`);
  if (seen.socketBefore !== seen.socketAfter) {
    problems.push(`the socket was recreated by the upgrade (inode and start ${seen.socketBefore} before, ${seen.socketAfter} after): nova's connections meanwhile could be refused`);
  }
  return problems;
}
