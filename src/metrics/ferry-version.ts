/**
 * ferry's version: `ferry --version`, and the `version` label of the build_info metrics. Alone in its file, with no
 * import, so that `ferry --version` loads nothing else.
 */
export const FERRY_VERSION = '0.1.0';
