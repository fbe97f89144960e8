import type { NodeCheck, NodeVerdict } from '../../host/judge-node.js';
import type { TextStyle } from '../output/text-style.js';

const MARKS: Readonly<Record<NodeCheck['status'], string>> = { ok: 'ok', warn: 'warn', fail: 'FAIL' };

/** One line per check (status, name, message), the hint under a failure or warning; a verdict line first. */
export function renderNodeChecks(verdict: NodeVerdict, style: TextStyle, what: string): string {
  const width = Math.max(...verdict.checks.map((check) => check.name.length));
  const count = (status: NodeCheck['status']): number => verdict.checks.filter((check) => check.status === status).length;
  const head = verdict.ok
    ? style.good(`${what}: ok`) + (count('warn') > 0 ? style.warn(` (${count('warn')} warning${count('warn') === 1 ? '' : 's'})`) : '')
    : style.bad(`${what}: ${count('fail')} failing`) + ` (first: ${verdict.code ?? '?'})`;
  const paint = (check: NodeCheck): string => {
    const mark = MARKS[check.status].padEnd(4);
    return check.status === 'ok' ? style.good(mark) : check.status === 'warn' ? style.warn(mark) : style.bad(mark);
  };
  return [head, ...verdict.checks.flatMap((check) => [`  ${paint(check)}  ${check.name.padEnd(width)}  ${check.message}`,
    ...(check.hint === undefined || check.status === 'ok' ? [] : [`        ${' '.repeat(width)}  ${style.dim(`→ ${check.hint}`)}`])])].join('\n');
}
