import pc from 'picocolors';

/** Colours only on a TTY (and never with NO_COLOR): renderers call these instead of picocolors directly. */
export interface TextStyle {
  readonly color: boolean;
  bold(text: string): string;
  dim(text: string): string;
  good(text: string): string;
  bad(text: string): string;
  warn(text: string): string;
}

export function textStyle(color: boolean): TextStyle {
  const colors = pc.createColors(color);
  return {
    color,
    bold: colors.bold,
    dim: colors.dim,
    good: colors.green,
    bad: colors.red,
    warn: colors.yellow,
  };
}
