import { describe, expect, it } from 'vitest';
import { parseImage } from '../../../src/glance/image.js';

// What the transport hands over when an answer is not JSON (it keeps the text): the error names what arrived.
describe('validateResponse: answers that are not JSON', () => {
  it.each([
    { title: 'an HTML error page from a proxy', body: '<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center></body></html>',
      message: /^GET \/v2\/images\/\{id\}: expected a JSON document, got an HTML page \("502 Bad Gateway"\): '<html>/, received: 'html' },
    { title: 'JSON cut off in the middle', body: '{"id": "688e33e9-d9bd-4017-a3d6-ecda9cd291d3", "status": "act',
      message: /got JSON that does not parse \(cut off or malformed\): '\{"id"/, received: 'text' },
    { title: 'plain text', body: 'Service Unavailable', message: /got text that is not JSON: 'Service Unavailable'$/, received: 'text' },
  ])('validateResponse: $title → FERRY_BAD_RESPONSE naming it', ({ body, message, received }) => {
    expect(() => parseImage(body)).toThrow(expect.objectContaining({ code: 'FERRY_BAD_RESPONSE', message: expect.stringMatching(message) as unknown,
      details: expect.objectContaining({ received }) as unknown }));
  });
});
