#!/usr/bin/env node
// The Python half of `npm run lint`: pyflakes over ferry's Python (the programs ferry runs, src/**/*.py; the nova
// integration's client; the Python of the tests and of the dev cloud), run by Debian's python3, isolated.
//
// pyflakes is Debian's python3-pyflakes. Where it is missing it is installed with apt-get when this runs as root or
// with passwordless sudo (as scripts/devcloud installs its packages; a fresh Debian 12 running `npm test` as root gets
// it here). Where it cannot be installed: every file is still compiled (syntax), a loud notice names the fix, and the
// lint fails under CI (CI=true or FERRY_REQUIRE_INTEGRATION=1) — never a quiet pass.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { aptInstall } from './lib/apt-install.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const PYTHON = '/usr/bin/python3';
const PACKAGE = 'python3-pyflakes';
const FOLDERS = ['src', 'integrations', 'test', 'scripts', 'bench'];
const required = process.env.CI === 'true' || process.env.FERRY_REQUIRE_INTEGRATION === '1';

const banner = (text) => console.error(`\n${'!'.repeat(78)}\n${text}\n${'!'.repeat(78)}\n`);

function pythonFiles(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (entry.name === '__pycache__' || entry.name === 'node_modules') return [];
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return pythonFiles(path);
    return entry.name.endsWith('.py') ? [path] : [];
  });
}

const python = (args, options = {}) => spawnSync(PYTHON, ['-I', '-B', ...args], { encoding: 'utf8', cwd: root, ...options });
const hasPyflakes = () => python(['-c', 'import pyflakes']).status === 0;

const installPyflakes = () => aptInstall(PACKAGE, 'lint-python') && hasPyflakes();

const files = FOLDERS.flatMap((folder) => pythonFiles(join(root, folder))).map((file) => relative(root, file)).sort();
if (!existsSync(PYTHON)) {
  banner(`PYTHON LINT SKIPPED: ${PYTHON} is missing (Debian: apt-get install python3 ${PACKAGE}).`);
  process.exit(required ? 1 : 0);
}
if (hasPyflakes() || installPyflakes()) {
  const lint = python(['-m', 'pyflakes', ...files], { stdio: 'inherit' });
  if (lint.status !== 0) console.error(`lint-python: pyflakes found problems in ferry's Python (above)`);
  process.exit(lint.status === 0 ? 0 : 1);
}
// Without pyflakes: the syntax at least.
const compiled = python(['-c', 'import sys\nfor path in sys.argv[1:]:\n    compile(open(path, "rb").read(), path, "exec")', ...files], { stdio: 'inherit' });
banner(`PYTHON LINT INCOMPLETE: pyflakes is not installed and cannot be installed here (not root, no passwordless sudo);\n`
  + `${files.length} Python files were only compiled. Install it: apt-get install ${PACKAGE}`);
process.exit(compiled.status !== 0 || required ? 1 : 0);
