import { describe, expect, it } from 'vitest';
import { staticClosure, staticImports } from '../../helpers/static-imports.js';

// `ferry --version` and `ferry --help` load only what src/cli/main.ts reaches through static imports; everything else
// waits for a command (bench/startup.ts measures the effect).
describe('start-up imports', () => {
  const closure = staticClosure('src/cli/main.ts');

  it('startup: main.ts loads no third-party package before a command is known', () => {
    expect([...closure.packages]).toEqual([]);
  });

  it('startup: main.ts reaches no config, cloud, logging or command module statically', () => {
    const heavy = [...closure.files].filter((file) => /^src\/(config|cloud|logging|openstack|glance|copy)\/|^src\/cli\/(commands|render|global-options)/.test(file));
    expect(heavy).toEqual([]);
    expect(closure.files).toContain('src/cli/run-cli.ts');
    expect(closure.files).toContain('src/cli/command-registry.ts');
  });

  it('staticImports: type-only imports are left out, value imports kept', () => {
    expect(staticImports('src/cli/run-cli.ts')).not.toContain('commander');
    expect(staticImports('src/contract/ensure-document.ts')).toContain('zod');
  });
});
