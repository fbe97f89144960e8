import { describe, expect, it } from 'vitest';
import { noOutage, noteGlanceAnswer, noteGlanceError, saysGlanceAway } from '../../../src/copy/glance-outage.js';
import { FerryError } from '../../../src/errors/ferry-error.js';

const unreachable = (cause: string) => new FerryError('FERRY_UNREACHABLE', `cannot reach: ${cause}`, 'h', { cause, retryable: true });
const http = (status: number) => new FerryError('FERRY_HTTP', `Glance answered ${status}`, 'h', { status, retryable: status >= 500 });

describe('an outage of Glance, as a copy job sees it', () => {
  it.each([
    { what: 'a refused connection (nobody listens)', error: unreachable('ECONNREFUSED'), away: true },
    { what: 'a gateway\'s 502', error: http(502), away: true },
    { what: 'a gateway\'s 503', error: http(503), away: true },
    { what: 'a gateway\'s 504', error: http(504), away: true },
    { what: 'a reset (the server may be alive: a lost answer)', error: unreachable('ECONNRESET'), away: false },
    { what: 'a 500 (Glance answered: it is there)', error: http(500), away: false },
    { what: 'a response timeout (busy, not away)', error: new FerryError('FERRY_TIMEOUT_RESPONSE', 'slow', 'h', { retryable: true }), away: false },
    { what: 'not a FerryError', error: new Error('boom'), away: false },
  ])('$what → away: $away', ({ error, away }) => {
    expect(saysGlanceAway(error)).toBe(away);
  });

  it('away, then an answer: Glance was restarted at that moment; an answer without an outage changes nothing', () => {
    const outage = noOutage();
    expect(noteGlanceAnswer(outage, 1_000)).toBe(false);
    expect(outage.backAtWallMs).toBeUndefined();
    expect(noteGlanceError(outage, unreachable('ECONNRESET'))).toBe(false);
    expect(noteGlanceError(outage, http(502))).toBe(true);
    expect(noteGlanceAnswer(outage, 2_000)).toBe(true);
    expect(outage).toMatchObject({ away: false, backAtWallMs: 2_000 });
    // a second outage moves the restart time on
    noteGlanceError(outage, unreachable('ECONNREFUSED'));
    expect(noteGlanceAnswer(outage, 9_000)).toBe(true);
    expect(outage.backAtWallMs).toBe(9_000);
  });
});
