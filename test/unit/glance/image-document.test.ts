import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseImageDocument } from '../../../src/glance/image-document.js';
import { imageTraitRequest } from '../../../src/prefilter/image-trait-request.js';

// One dev cloud image recorded two ways (fixtures/images/README.md): Glance's body and the openstack CLI's output.
const GLANCE = readFileSync('fixtures/images/glance-image-show.json', 'utf8');
const OSC = readFileSync('fixtures/images/openstack-image-show.json', 'utf8');
const PARTIAL = JSON.stringify({ disk_format: 'qcow2', hw_disk_bus: 'scsi', hw_vif_model: 'e1000', hw_video_model: 'qxl', hw_architecture: 'x86_64' });

function image(text: string, label = 'image.json') {
  const result = parseImageDocument(text, label);
  if (!result.ok) throw new Error(`unexpected problems: ${result.problems.join('; ')}`);
  return result;
}

function problems(text: string, needs: readonly 'disk_format'[] = []): readonly string[] {
  const result = parseImageDocument(text, 'bad.json', needs);
  if (result.ok) throw new Error('expected problems');
  return result.problems;
}

describe('parseImageDocument', () => {
  it('parseImageDocument: the three shapes of one image give the same properties and disk format', () => {
    const glance = image(GLANCE);
    const osc = image(OSC);
    const partial = image(PARTIAL);
    expect([glance.shape, osc.shape, partial.shape]).toEqual(['glance', 'openstack', 'partial']);
    for (const parsed of [glance, osc, partial]) {
      expect(parsed.image.diskFormat).toBe('qcow2');
      expect(parsed.image.properties).toMatchObject({ hw_disk_bus: 'scsi', hw_vif_model: 'e1000', hw_video_model: 'qxl', hw_architecture: 'x86_64' });
    }
    expect(osc.image.id).toBe(glance.image.id);
    expect(osc.image.stores).toEqual(['central']);
    expect(osc.image.properties).toEqual(glance.image.properties);
  });

  it('parseImageDocument: the openstack CLI shape gives the storage-bus and VIF traits the Glance shape gives', () => {
    const traits = (text: string) => imageTraitRequest(image(text).image.raw).root_required;
    const fromGlance = traits(GLANCE);
    expect(fromGlance).toEqual(expect.arrayContaining(['COMPUTE_STORAGE_BUS_SCSI', 'COMPUTE_NET_VIF_MODEL_E1000',
      'COMPUTE_GRAPHICS_MODEL_QXL', 'COMPUTE_IMAGE_TYPE_QCOW2']));
    expect(traits(OSC)).toEqual(fromGlance);
    expect(traits(PARTIAL)).toEqual(fromGlance);
  });

  it('parseImageDocument: a partial document is named by its file and has placeholder base fields', () => {
    const { image: parsed } = image('{"disk_format": "raw"}', 'images/raw.json');
    expect(parsed).toMatchObject({ id: 'images/raw.json', name: null, status: 'unknown', visibility: 'unknown', diskFormat: 'raw' });
  });

  it('parseImageDocument: every problem is listed at once, with the field and what was expected', () => {
    const text = JSON.stringify({ disk_format: 5, hw_disk_bus: 1, name: ['x'], tags: 'a,b', properties: { hw_vif_model: true } });
    expect(problems(text)).toEqual([
      'disk_format: expected a string or null, got 5',
      'hw_disk_bus: expected a string (Glance keeps every image property as one), got 1',
      'name: expected a string or null, got ["x"]',
      'tags: expected a list of strings, got "a,b"',
      'properties.hw_vif_model: expected a string (Glance keeps every image property as one), got true',
    ]);
  });

  it.each([
    { title: 'not JSON', text: '# a README\n', problem: /^it is not valid JSON \(/ },
    { title: 'empty', text: ' \n', problem: /^the file is empty$/ },
    { title: 'a list (image list -f json)', text: '[{"id": "a"}, {"id": "b"}]', problem: /^it holds a list of 2 item\(s\), not one image/ },
    { title: 'a string', text: '"qcow2"', problem: /^it holds a string \("qcow2"\), not an image object$/ },
    { title: 'properties not an object', text: '{"properties": "hw_disk_bus=\'scsi\'"}', problem: /^properties: expected an object of image properties/ },
    { title: 'a typo in a hand-written disk_format', text: '{"disk_format": "qcow"}', problem: /^disk_format: expected one of ami, .*qcow2.*, got "qcow"$/ },
    { title: 'a typo in a hand-written document in the openstack CLI shape', text: '{"disk_format": "qcow", "properties": {"hw_disk_bus": "scsi"}}',
      problem: /^disk_format: expected one of ami, .*qcow2.*, got "qcow"$/ },
  ])('parseImageDocument: $title → one clear problem', ({ text, problem }) => {
    expect(problems(text)).toEqual([expect.stringMatching(problem)]);
  });

  it('parseImageDocument: a key at the top and under properties with different values is a problem', () => {
    expect(problems('{"disk_format": "raw", "hw_disk_bus": "ide", "properties": {"hw_disk_bus": "scsi"}}')).toEqual([
      'hw_disk_bus is given twice with different values, at the top level ("ide") and under properties ("scsi")',
    ]);
  });

  it('parseImageDocument: a field the command needs is reported with the other problems', () => {
    expect(problems('{"hw_disk_bus": 3}', ['disk_format'])).toEqual([
      'hw_disk_bus: expected a string (Glance keeps every image property as one), got 3',
      'disk_format is missing, and this command needs it',
    ]);
  });

  it('parseImageDocument: a saved Glance answer with a disk format outside the default list is accepted', () => {
    const body = { ...(JSON.parse(GLANCE) as Record<string, unknown>), disk_format: 'luks' };
    expect(image(JSON.stringify(body)).image.diskFormat).toBe('luks');
  });
});
