// Integration tests run only against the real dev cloud: without it they fail, never skip quietly.
import { beforeAll } from 'vitest';
import { devcloud } from './devcloud.js';

beforeAll(() => {
  devcloud();
});
