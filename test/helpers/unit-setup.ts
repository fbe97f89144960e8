// Unit tests never touch the network: nock intercepts node:http (and global fetch), and anything not mocked fails.
import nock from 'nock';
import { afterEach, beforeAll } from 'vitest';

beforeAll(() => {
  nock.disableNetConnect();
});

afterEach(() => {
  nock.cleanAll();
});
