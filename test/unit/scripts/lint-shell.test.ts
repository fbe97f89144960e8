// scripts/lint-shell.mjs (npm run lint's ShellCheck step): which files it takes for shell scripts, and the rule its
// header states — a finding left in place says why, in the directive itself.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs script of the build, without types
import * as lintShell from '../../../scripts/lint-shell.mjs';

interface ShellScript { readonly path: string; readonly shell: 'bash' | 'sh' }
const { shellOf: shellOfFile, listShellScripts } = lintShell as {
  shellOf: (path: string, text: string) => 'bash' | 'sh' | undefined;
  listShellScripts: () => readonly ShellScript[];
};

describe('lint-shell: shellOf', () => {
  it.each([
    ['scripts/up', '#!/usr/bin/env bash\nset -e\n', 'bash'],
    ['bin/x', '#!/bin/bash\n', 'bash'],
    ['debian/ferry.postinst', '#!/bin/sh\nset -e\n', 'sh'],
    ['bin/env-sh', '#!/usr/bin/env sh\n', 'sh'],
    ['scripts/devcloud/lib/ceph.sh', '# shellcheck shell=bash\n# sourced\n', 'bash'],
    ['scripts/lib/x.sh', '# sourced, no directive\n', 'bash'],
    ['bin/ferry', '#!/usr/bin/env node\n', undefined],
    ['bin/ferry-notify-exec', '#!/usr/bin/python3 -IS\n', undefined],
    ['bin/bashful', '#!/usr/bin/bashful\n', undefined],
    ['README', 'no shebang\n', undefined],
  ])('%s', (path, text, shell) => {
    expect(shellOfFile(path, text)).toBe(shell);
  });
});

describe('lint-shell: what it checks', () => {
  const scripts = listShellScripts();

  it('npm run lint runs it', () => {
    expect(JSON.parse(readFileSync('package.json', 'utf8')).scripts.lint).toContain('node scripts/lint-shell.mjs');
  });

  it('takes the scripts of every folder, the sourced libraries and the maintainer scripts', () => {
    const paths = scripts.map((script) => script.path);
    for (const path of ['scripts/devcloud/up', 'scripts/devcloud/lib/common.sh', 'scripts/systemd/up', 'debian/ferry.postinst',
      'integrations/nova/ferry-nova-patch', '.ci/run']) expect(paths).toContain(path);
    expect(paths.some((path) => path.includes('node_modules') || path.endsWith('.ts'))).toBe(false);
  });

  it('each shellcheck disable= in them carries a reason after the codes', () => {
    const bare = scripts.flatMap(({ path }) => readFileSync(path, 'utf8').split('\n').map((line, i) => ({ where: `${path}:${i + 1}`, line }))
      .filter(({ line }) => /#\s*shellcheck\s+disable=/.test(line) && !/disable=[A-Z0-9,]+\s+#\s*\S/.test(line)));
    expect(bare.map(({ where, line }) => `${where}: ${line.trim()}`)).toEqual([]);
  });
});
