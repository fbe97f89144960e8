import { readFileSync } from 'node:fs';

// ferry's programs in Python (src/rbd/python/*.py) are real files, linted (`npm run lint`: pyflakes) and tested
// (test/unit/rbd/python/, against stand-in rados/rbd modules) like the rest. Their text reaches every way ferry runs:
// - the library (dist/, built by tsc): `npm run build` copies them to dist/rbd/python/ (scripts/copy-python.mjs), and
//   this module reads each once, beside itself; the tests (vitest runs src/) read src/rbd/python/ the same way;
// - the CLI bundle (dist/ferry-cli/): scripts/bundle-cli.mjs defines FERRY_EMBEDDED_PYTHON as their texts, so the
//   bundle carries them and reads no file.

export type PythonProgram = 'librbd_copy' | 'librados_fsid' | 'rbd_store_copies';

/** Which Python runs them: Debian's, where python3-rbd installs (a pyenv or venv python on PATH lacks it). */
export const LIBRBD_PYTHON_DEFAULT = '/usr/bin/python3';

/** The python ferry runs for librados/librbd (the copy, a cluster's fsid): FERRY_RBD_PYTHON, else Debian's. */
export const rbdPython = (): string => process.env.FERRY_RBD_PYTHON ?? LIBRBD_PYTHON_DEFAULT;

/** Replaced by the bundler with { name: text }; not defined in the library or the tests. */
declare const FERRY_EMBEDDED_PYTHON: Readonly<Partial<Record<PythonProgram, string>>> | undefined;

const texts = new Map<PythonProgram, string>();

/** The program's source text (read once). */
export function pythonProgramText(name: PythonProgram): string {
  let text = texts.get(name);
  if (text === undefined) {
    text = typeof FERRY_EMBEDDED_PYTHON === 'undefined'
      ? readFileSync(new URL(`./python/${name}.py`, import.meta.url), 'utf8')
      : FERRY_EMBEDDED_PYTHON[name];
    if (text === undefined) throw new Error(`ferry's Python program ${name}.py is missing from this build: rebuild ferry (npm run build)`);
    texts.set(name, text);
  }
  return text;
}

/**
 * How ferry starts one of them: `python3 -I -c TEXT ARGS…` from `/`. Isolated (-I): neither the working directory nor
 * PYTHONPATH/PYTHONSTARTUP nor the user's site-packages reach sys.path, so a `rados.py` or `json.py` left where an
 * operator runs ferry is never imported (the system's site-packages, where Debian puts python3-rbd, still are). From
 * `/`, so that nothing the program opens by a relative name is the operator's: paths it is given are made absolute
 * first.
 */
export function isolatedPython(name: PythonProgram, args: readonly string[] = []): { readonly args: readonly string[]; readonly cwd: string } {
  return { args: ['-I', '-c', pythonProgramText(name), ...args], cwd: '/' };
}
