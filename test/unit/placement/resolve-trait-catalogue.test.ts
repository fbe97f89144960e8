import { describe, expect, it } from 'vitest';
import { FerryError } from '../../../src/errors/ferry-error.js';
import { chooseTraitCatalogue, resolveTraitCatalogue, type TraitCatalogueChoice, type TraitCatalogueNeed } from '../../../src/placement/resolve-trait-catalogue.js';
import { standardTraitCatalogue, traitCatalogueFromNames } from '../../../src/traits/trait-catalogue.js';

const GIVEN = standardTraitCatalogue('2.9.0');
const PLACEMENT = traitCatalogueFromNames(['HW_ARCH_X86_64', 'CUSTOM_SITE_B']);

const choices: readonly { command: string; need: TraitCatalogueNeed; choice: TraitCatalogueChoice }[] = [
  { command: 'any, with --os-traits-version', need: { given: GIVEN, cloud: true, sentToPlacement: true }, choice: { from: 'given' } },
  { command: 'traits (no cloud)', need: { given: undefined, cloud: false, sentToPlacement: false }, choice: { from: 'os-traits' } },
  { command: 'prefilter --image FILE', need: { given: undefined, cloud: false, sentToPlacement: false }, choice: { from: 'os-traits' } },
  { command: 'prefilter --image ID', need: { given: undefined, cloud: true, sentToPlacement: false }, choice: { from: 'placement', orElse: 'os-traits' } },
  { command: 'candidates, explain, traits report', need: { given: undefined, cloud: true, sentToPlacement: true }, choice: { from: 'placement', orElse: 'fail' } },
];

const refused = new FerryError('FERRY_FORBIDDEN', 'Placement refused GET /traits (403)', 'Use an account with the reader role.');

describe('chooseTraitCatalogue', () => {
  it.each(choices)('ferry $command → $choice', ({ need, choice }) => {
    expect(chooseTraitCatalogue(need)).toEqual(choice);
  });
});

describe('resolveTraitCatalogue', () => {
  const lookWithCloud: TraitCatalogueNeed = { given: undefined, cloud: true, sentToPlacement: false };
  const sent: TraitCatalogueNeed = { given: undefined, cloud: true, sentToPlacement: true };
  const never = (): Promise<never> => Promise.reject(new Error('Placement must not be asked'));

  it('the given release, without asking Placement', async () => {
    expect(await resolveTraitCatalogue({ ...sent, given: GIVEN }, never)).toEqual({ catalogue: GIVEN, choice: { from: 'given' } });
  });

  it('no cloud: the default os-traits release, without asking Placement', async () => {
    const resolved = await resolveTraitCatalogue({ given: undefined, cloud: false, sentToPlacement: false }, never);
    expect(resolved.catalogue.version).toBe(standardTraitCatalogue().version);
    expect(resolved.note).toBeUndefined();
  });

  it('Placement\'s own list when it answers', async () => {
    expect(await resolveTraitCatalogue(sent, () => Promise.resolve(PLACEMENT))).toEqual({ catalogue: PLACEMENT, choice: { from: 'placement', orElse: 'fail' } });
  });

  it('a look Placement refuses: the default release, with a note naming why', async () => {
    const resolved = await resolveTraitCatalogue(lookWithCloud, () => Promise.reject(refused));
    expect(resolved.catalogue.version).toBe(standardTraitCatalogue().version);
    expect(resolved.note).toBe(`names checked against os-traits ${standardTraitCatalogue().version}, not the target Placement's list: ${refused.message}`);
  });

  it.each([
    { why: 'a request sent to Placement, which refuses its list', need: sent, error: refused },
    { why: 'a look that was aborted', need: lookWithCloud, error: new FerryError('FERRY_ABORTED', 'aborted', 'Run it again.') },
    { why: 'a look that hit a bug (not a coded error)', need: lookWithCloud, error: new TypeError('x is undefined') },
  ])('$why: the error, not a stand-in', async ({ need, error }) => {
    await expect(resolveTraitCatalogue(need, () => Promise.reject(error))).rejects.toBe(error);
  });
});
