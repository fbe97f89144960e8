// The dev cloud's Glance reads packaging/glance/ferry-policy.yaml ([oslo_policy] policy_file) and every file in one
// directory beside it ([oslo_policy] policy_dirs, empty unless a test fills it): tests drop one of
// packaging/glance/opt-in/ there for a while. glance-api reads a changed file or directory on its next request, but
// never forgets a rule once read (its enforcer merges, overwrite=False): removing a file does not bring the rule back
// to its default. So a test writes the rule's earlier value back into the same file, and removes its files with a
// restart of glance-api at the end (restartGlanceWithout).
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { devcloud } from './devcloud.js';
import { FAULT_KILL_MS, faults, FAULTS_UP_MS } from './devcloud-faults.js';

/** The opt-in files ferry ships, as the operator would install them. */
export const OPT_IN = {
  novaFallback: 'packaging/glance/opt-in/nova-fallback.yaml',
  privateImages: 'packaging/glance/opt-in/private-images.yaml',
} as const;

/** The text of a shipped policy file (the repository's). */
export const shippedPolicy = (path: string): string => readFileSync(join(process.cwd(), path), 'utf8');

/** Put `text` into the dev cloud's Glance policy directory as `name` (read by glance-api on its next request). */
export function writeGlanceRules(name: string, text: string): void {
  writeFileSync(join(devcloud().ferry.glancePolicy.dir, name), text);
}

/** The files in the dev cloud's Glance policy directory (empty unless a test put some there). */
export const glanceRuleFiles = (): string[] => readdirSync(devcloud().ferry.glancePolicy.dir);

/** clearGlanceRules()'s programs: glance-api killed, the dev cloud brought up again. */
export const CLEAR_GLANCE_RULES_MS = FAULT_KILL_MS + FAULTS_UP_MS;
/**
 * Remove every file of the policy directory and restart glance-api (the dev cloud's fault kill + up: data kept), so
 * that no rule of theirs stays: removing alone would leave them in force (and a rule written back just before the
 * removal may not have been read by every worker). `onlyIfAny`: do nothing when the directory is empty already.
 */
export function clearGlanceRules(options: { onlyIfAny?: boolean } = {}): void {
  const files = glanceRuleFiles();
  if (options.onlyIfAny === true && files.length === 0) return;
  for (const name of files) rmSync(join(devcloud().ferry.glancePolicy.dir, name), { force: true });
  faults.kill('glance');
  faults.up();
}
