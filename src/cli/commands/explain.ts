import { z } from 'zod';
import type { GlanceImage } from '../../glance/image.js';
import { explainHosts, type HostExplanations } from '../../prefilter/explain-hosts.js';
import type { PrefilterResult } from '../../prefilter/prefilter-result.js';
import type { CommandSpec, FlagValue } from '../command-spec.js';
import { renderExplain } from '../render/explain.js';
import { prefilterJsonSchema, traitRequestJson } from './prefilter.js';
import {
  microversionFlag, placementTraitRequest, PREFILTER_INPUT_OPTIONS, readPrefilterInput, resourcesFlag, type PrefilterInput,
} from './prefilter-input.js';

/** What `ferry explain` found, host by host. */
export interface ExplainReport {
  readonly image: Pick<GlanceImage, 'id' | 'name'>;
  readonly result: PrefilterResult;
  readonly explained: HostExplanations;
  readonly catalogueVersion: string;
  readonly switches: PrefilterInput['switches'];
}

const fitSchema = z.strictObject({
  resource_class: z.string(),
  requested: z.number(),
  capacity: z.number(),
  used: z.number(),
  free: z.number(),
  fits: z.boolean(),
  why: z.string().optional(),
});

export const explainJsonSchema = prefilterJsonSchema.extend({
  resources: z.string().nullable(),
  candidates: z.number().int().nonnegative(),
  hosts: z.array(z.strictObject({
    uuid: z.string(),
    name: z.string(),
    parent: z.string().nullable(),
    candidate: z.boolean(),
    verdict: z.enum(['candidate', 'traits', 'resources', 'not-returned', 'traits-match']),
    lacks: z.array(z.string()),
    has_forbidden: z.array(z.string()),
    reason: z.string(),
    fit: z.array(fitSchema).nullable(),
  })),
  trait_lookup: z.enum(['per-host', 'per-trait', 'none']),
  capacity_not_read: z.number().int().nonnegative(),
});
export type ExplainJson = z.infer<typeof explainJsonSchema>;

export const explainCommand: CommandSpec<ExplainReport> = {
  name: 'explain',
  summary: 'Host by host: is it a candidate for the image, and if not, which trait or resource keeps it out',
  description: 'What "No valid host" never says. For each --provider (or every compute node): whether Placement ' +
    'returns it for the image (and --resources), and if not, each required trait it lacks and forbidden trait it has, with ' +
    'the image property or rule behind it, or the resource that is short. Without --resources only the traits are judged.',
  examples: [
    'ferry explain --image 8554f597-4961-4557-9ad1-1fbfef5ebc46 --resources VCPU:2,MEMORY_MB:4096,DISK_GB:20',
    'ferry explain --image image.json --provider compute-7.site-b --provider compute-8.site-b --resources VCPU:1,MEMORY_MB:512',
    'ferry explain --image cirros --nova-conf /etc/nova/nova.conf --json',
  ],
  arguments: [],
  options: [
    ...PREFILTER_INPUT_OPTIONS,
    { name: 'provider', value: 'UUID|NAME', repeatable: true, description: 'a host to explain (default: every root provider)' },
    { name: 'resources', value: 'CLASS:N,…', description: 'the flavor\'s resources (VCPU:1,MEMORY_MB:512): also ask Placement for candidates' },
    { name: 'microversion', value: 'X.Y', description: 'the newest Placement microversion to speak (default: the newest both speak)' },
  ],
  jsonSchema: explainJsonSchema,
  async run(ctx) {
    const resources = resourcesFlag(ctx.flags);
    const wanted = microversionFlag(ctx.flags);
    const providers = listFlag(ctx.flags.provider);
    const input = await readPrefilterInput(ctx);
    const { placement, catalogue, result } = await placementTraitRequest(ctx, input, wanted,
      resources === undefined ? {} : { resources });
    const explained = await explainHosts(placement, result, {
      providers, catalogue, signal: ctx.signal, ...(resources === undefined ? {} : { resources }),
    });
    return { image: { id: input.image.id, name: input.image.name }, result, explained, catalogueVersion: catalogue.version, switches: input.switches };
  },
  toJson: (report): ExplainJson => {
    const { explained } = report;
    return {
      ...traitRequestJson(report, report.explained.query, report.explained.microversion),
      resources: explained.resources ?? null,
      candidates: explained.hosts.filter((h) => h.candidate).length,
      hosts: explained.hosts.map((h) => ({
        uuid: h.uuid, name: h.name, parent: h.parent ?? null, candidate: h.candidate, verdict: h.verdict,
        lacks: h.lacks.map((g) => g.trait), has_forbidden: h.hasForbidden.map((g) => g.trait), reason: h.reason,
        fit: h.fit === undefined ? null : h.fit.map((f) => ({
          resource_class: f.resourceClass, requested: f.requested, capacity: f.capacity, used: f.used, free: f.free, fits: f.fits,
          ...(f.why === undefined ? {} : { why: f.why }),
        })),
      })),
      trait_lookup: explained.traitLookup,
      capacity_not_read: explained.capacityNotRead,
    };
  },
  render: renderExplain,
};

function listFlag(value: FlagValue): readonly string[] {
  if (value === undefined || typeof value === 'boolean') return [];
  return (typeof value === 'string' ? [value] : value).map((v) => v.trim()).filter((v) => v !== '');
}
