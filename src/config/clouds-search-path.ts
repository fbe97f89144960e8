import { isAbsolute, join, resolve } from 'node:path';

export interface CloudsSearchInput {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
  readonly homeDir: string;
  /** The process's effective uid (undefined where there is none: not POSIX). */
  readonly euid?: number | undefined;
}

export interface CloudsSearchPath {
  /** Candidates for clouds.yaml, first readable one wins. */
  readonly clouds: readonly string[];
  /** Candidates for secure.yaml (searched on its own, like openstacksdk), first readable one wins. */
  readonly secure: readonly string[];
}

const SUFFIXES = ['.yaml', '.yml', '.json'] as const;

/**
 * Where openstacksdk looks for clouds.yaml and secure.yaml, in order: `OS_CLIENT_CONFIG_FILE` /
 * `OS_CLIENT_SECURE_FILE`, then the working directory, `$XDG_CONFIG_HOME/openstack`, `~/.config/openstack` and
 * `/etc/openstack`, each with the suffixes .yaml, .yml, .json. The working directory only where
 * searchesWorkingDirectory says so. Pure.
 */
export function cloudsSearchPath(input: CloudsSearchInput): CloudsSearchPath {
  const { env, cwd, homeDir } = input;
  const withCwd = searchesWorkingDirectory(input);
  const dirs = withCwd ? [cwd] : [];
  const xdg = nonEmpty(env.XDG_CONFIG_HOME);
  // A relative XDG_CONFIG_HOME is the working directory again: not where the working directory is not searched.
  if (xdg !== undefined && (withCwd || isAbsolute(xdg))) dirs.push(join(resolve(cwd, xdg), 'openstack'));
  dirs.push(join(homeDir, '.config', 'openstack'), '/etc/openstack');
  const unique = [...new Set(dirs)];
  const candidates = (base: string, override: string | undefined): string[] => [
    ...(override === undefined ? [] : [resolve(cwd, override)]),
    ...unique.flatMap((dir) => SUFFIXES.map((suffix) => join(dir, `${base}${suffix}`))),
  ];
  return {
    clouds: candidates('clouds', nonEmpty(env.OS_CLIENT_CONFIG_FILE)),
    secure: candidates('secure', nonEmpty(env.OS_CLIENT_SECURE_FILE)),
  };
}

/**
 * openstacksdk reads ./clouds.yaml (and merges ./secure.yaml over it) for everyone. Not ferry as root, nor in a
 * systemd service (systemd sets INVOCATION_ID for every unit's processes, whatever their user): whoever may write
 * the directory `sudo ferry evict` is run from (a shared checkout, /tmp), or a service's working directory, would
 * choose the Keystone ferry's password goes to and the identity it acts as. Those runs read the files an operator
 * put in place for them (OS_CLIENT_CONFIG_FILE, ~/.config/openstack, /etc/openstack).
 */
export function searchesWorkingDirectory(input: Pick<CloudsSearchInput, 'env' | 'euid'>): boolean {
  return input.euid !== 0 && nonEmpty(input.env.INVOCATION_ID) === undefined;
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}
