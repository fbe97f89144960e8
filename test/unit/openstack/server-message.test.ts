import { describe, expect, it } from 'vitest';
import { serverMessage } from '../../../src/openstack/server-message.js';
import { loadExchange, type RecordedExchange } from '../../helpers/fixtures.js';

const lastSegment = (exchange: RecordedExchange): string => exchange.request.path.split('/').at(-1) ?? '';
const importedId = (exchange: RecordedExchange): string => exchange.request.path.split('/')[3] ?? '';

const glance404 = loadExchange('glance', 'image-404');
const import404 = loadExchange('glance', 'import-404');
const newOperation = loadExchange('glance', 'import-409-new-operation');
const provider404 = loadExchange('placement', 'provider-404');

// Every recorded error body: Glance's JSON with its `<br />` tail, Keystone's error.message, Placement's
// errors[0].detail ("generic sentence\n\n specific text  ").
const recordedErrors = [
  { fixture: 'glance/image-401', exchange: loadExchange('glance', 'image-401'),
    expected: 'This server could not verify that you are authorized to access the document you requested. Either you supplied the wrong credentials (e.g., bad password), or your browser does not understand how to supply the credentials required.' },
  { fixture: 'glance/image-404', exchange: glance404, expected: `No image found with ID ${lastSegment(glance404)}` },
  { fixture: 'glance/import-400-already-present', exchange: loadExchange('glance', 'import-400-already-present'),
    expected: "Image is already present at store 'site-b'" },
  { fixture: 'glance/import-403-member', exchange: loadExchange('glance', 'import-403-member'),
    expected: 'You are not authorized to complete copy_image action.' },
  { fixture: 'glance/import-404', exchange: import404, expected: `No image found with ID ${importedId(import404)}` },
  { fixture: 'glance/import-409-active-task', exchange: loadExchange('glance', 'import-409-active-task'), expected: 'Image has active task' },
  { fixture: 'glance/import-409-new-operation', exchange: newOperation,
    expected: `New operation on image '${importedId(newOperation)}' is not permitted as prior operation is still in progress` },
  { fixture: 'glance/import-409-not-active', exchange: loadExchange('glance', 'import-409-not-active'),
    expected: 'Only images with status active can be targeted for copying' },
  { fixture: 'glance/import-409-unknown-store', exchange: loadExchange('glance', 'import-409-unknown-store'),
    expected: 'Store for identifier nosuch not found' },
  { fixture: 'glance/info-stores-detail-403-member', exchange: loadExchange('glance', 'info-stores-detail-403-member'),
    expected: 'You are not authorized to complete stores_info_detail action.' },
  { fixture: 'keystone/token-bad-password', exchange: loadExchange('keystone', 'token-bad-password'),
    expected: 'The request you have made requires authentication.' },
  { fixture: 'keystone/token-appcred-with-scope', exchange: loadExchange('keystone', 'token-appcred-with-scope'),
    expected: 'Error authenticating with application credential: Application credentials cannot request a scope.' },
  { fixture: 'placement/allocation-candidates-400-unknown-trait', exchange: loadExchange('placement', 'allocation-candidates-400-unknown-trait'),
    expected: 'No such trait(s): COMPUTE_NOT_A_TRAIT.' },
  { fixture: 'placement/placement-403-member', exchange: loadExchange('placement', 'placement-403-member'),
    expected: 'Policy does not allow placement:resource_providers:list to be performed.' },
  { fixture: 'placement/provider-404', exchange: provider404,
    expected: `No resource provider with uuid ${lastSegment(provider404)} found` },
  { fixture: 'placement/traits-put-400-unknown', exchange: loadExchange('placement', 'traits-put-400-unknown'),
    expected: 'No such trait COMPUTE_NOT_A_TRAIT' },
  { fixture: 'placement/traits-put-409-generation', exchange: loadExchange('placement', 'traits-put-409-generation'),
    expected: "Resource provider's generation already changed. Please update the generation and try again." },
];

describe('serverMessage', () => {
  it.each(recordedErrors)('serverMessage: recorded $fixture', ({ exchange, expected }) => {
    expect(exchange.status).toBeGreaterThanOrEqual(400);
    expect(serverMessage(exchange.body)).toBe(expected);
  });

  it.each([
    { fixture: 'glance/import-202 (empty body)', body: loadExchange('glance', 'import-202').body },
    { fixture: 'glance/info-import', body: loadExchange('glance', 'info-import').body },
    { fixture: 'keystone/token-password-admin', body: loadExchange('keystone', 'token-password-admin').body },
    { fixture: 'placement/provider-traits-get', body: loadExchange('placement', 'provider-traits-get').body },
  ])('serverMessage: a success body $fixture has no message', ({ body }) => {
    expect(serverMessage(body)).toBeUndefined();
  });

  it.each([
    // Glance's 401 as HTML when the request lacks Accept: application/json (keystone.md §9).
    { name: 'an HTML page yields its text', body: '<html>\n <head><title>401 Unauthorized</title></head>\n <body><h1>401 Unauthorized</h1></body>\n</html>',
      expected: '401 Unauthorized 401 Unauthorized' },
    { name: 'a 503 with a second line keeps only the first', body: { message: 'The server is currently unavailable. Please try again at a later time.<br /><br />\nThe Keystone service is temporarily unavailable.\n\n' },
      expected: 'The server is currently unavailable. Please try again at a later time.' },
    { name: 'whitespace only is no message', body: '  \n ', expected: undefined },
    { name: 'a number is no message', body: 5, expected: undefined },
  ])('serverMessage: $name', ({ body, expected }) => {
    expect(serverMessage(body)).toBe(expected);
  });
});
