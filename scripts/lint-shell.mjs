#!/usr/bin/env node
// The shell half of `npm run lint`: ShellCheck (Debian's shellcheck) over every shell script of the project — a file
// whose first line runs sh or bash, or that says `# shellcheck shell=…` (the sourced libraries), or ends in .sh — in
// scripts/, bin/, debian/, packaging/, integrations/, bench/, test/ and .ci/. Every finding counts, notes included;
// a line that is right as it is says why in a `# shellcheck disable=SCnnnn # why` directive.
//
// Where shellcheck is missing it is installed with apt-get when this runs as root or with passwordless sudo (a fresh
// Debian 12 running `npm test` as root gets it here). Where it cannot be installed: every script is still parsed by
// its shell (`bash -n`, `sh -n`), a loud notice names the fix, and the lint fails under CI — never a quiet pass.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { aptInstall } from './lib/apt-install.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const FOLDERS = ['scripts', 'bin', 'debian', 'packaging', 'integrations', 'bench', 'test', '.ci'];
const required = process.env.CI === 'true' || process.env.FERRY_REQUIRE_INTEGRATION === '1';
const banner = (text) => console.error(`\n${'!'.repeat(78)}\n${text}\n${'!'.repeat(78)}\n`);

/** 'bash', 'sh' or undefined: which shell a file is written for. */
export function shellOf(path, text) {
  const first = text.slice(0, text.indexOf('\n') + 1 || undefined);
  const shebang = /^#!\s*(?:\/usr)?\/bin\/(?:env\s+)?(bash|sh)\b/.exec(first)?.[1];
  if (shebang !== undefined) return shebang;
  const directive = /^# shellcheck shell=(bash|sh)\b/m.exec(text.slice(0, 2000))?.[1];
  if (directive !== undefined) return directive;
  return path.endsWith('.sh') ? 'bash' : undefined;
}

function shellScripts(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (['node_modules', '.devcloud', '__pycache__', '.git'].includes(entry.name)) return [];
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return shellScripts(path);
    if (!entry.isFile() || /\.(ts|mjs|js|json|py|md|ya?ml|xml|txt|patch|service|socket|timer|conf|prom)$/.test(entry.name)) return [];
    const text = readFileSync(path, 'latin1');
    const shell = shellOf(path, text);
    return shell === undefined ? [] : [{ path: relative(root, path), shell }];
  });
}

/** Every shell script of the project, by path from the checkout's root, with its shell. */
export function listShellScripts() {
  return FOLDERS.flatMap((folder) => shellScripts(join(root, folder))).sort((a, b) => a.path.localeCompare(b.path));
}

const hasShellcheck = () => spawnSync('shellcheck', ['--version'], { stdio: 'ignore' }).status === 0;

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const scripts = listShellScripts();
  if (hasShellcheck() || (aptInstall('shellcheck', 'lint-shell') && hasShellcheck())) {
    // -x follows `source` lines (each names its file with a `# shellcheck source=` directive), relative to the script.
    const lint = spawnSync('shellcheck', ['-x', '--source-path=SCRIPTDIR', ...scripts.map((s) => s.path)], { stdio: 'inherit', cwd: root });
    if (lint.status !== 0) console.error(`lint-shell: shellcheck found problems in ${scripts.length} shell scripts (above)`);
    else console.error(`lint-shell: ${scripts.length} shell scripts, no finding`);
    process.exit(lint.status === 0 ? 0 : 1);
  }
  const broken = scripts.filter(({ path, shell }) => spawnSync(shell, ['-n', path], { stdio: 'inherit', cwd: root }).status !== 0);
  banner(`SHELL LINT INCOMPLETE: shellcheck is not installed and cannot be installed here (not root, no passwordless sudo);\n`
    + `${scripts.length} shell scripts were only parsed${broken.length > 0 ? `, ${broken.length} with errors` : ''}. Install it: apt-get install shellcheck`);
  process.exit(broken.length > 0 || required ? 1 : 0);
}
