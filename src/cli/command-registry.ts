import type { CommandCatalog } from './command-spec.js';

/**
 * Every command, lazy-loaded: `ferry ensure` never loads the XML parser, `ferry traits` never loads the waiter. Each
 * summary is written here only: `ferry --help` lists them, `ferry CMD --help` shows its own.
 */
export const COMMANDS: CommandCatalog = {
  ensure: {
    summary: 'Make sure an image has a clonable copy in the local Ceph store (copy-image when needed)',
    load: async () => (await import('./commands/ensure.js')).ensureCommand,
  },
  agent: {
    summary: 'Serve ensure/status on a Unix socket for the host\'s callers (nova), with host-wide single flight',
    load: async () => (await import('./commands/agent.js')).agentCommand,
  },
  // Two words: `ferry agent status` wins over `ferry agent` (the runner tries `argv[0] argv[1]` first).
  'agent status': {
    summary: 'The agent\'s health without curl: its socket and group, every /healthz check with its message, its version',
    load: async () => (await import('./commands/agent-status.js')).agentStatusCommand,
  },
  doctor: {
    summary: 'Is ferry right on this node? The agent\'s socket, group, health and version, nova.conf\'s options for it, the nova patch',
    load: async () => (await import('./commands/doctor.js')).doctorCommand,
  },
  backend: {
    summary: 'Which storage backend takes an image on this host (images_type + images_type_mapping), and why',
    load: async () => (await import('./commands/backend.js')).backendCommand,
  },
  status: {
    summary: 'Where an image lives: stores, import in progress, failed stores, lock and task age (--matrix: images × stores; --usage: stores against their budgets)',
    load: async () => (await import('./commands/status.js')).statusCommand,
  },
  stores: {
    summary: 'The stores Glance offers, which one is this host\'s, their types and pools (GET /v2/info/stores[/detail])',
    load: async () => (await import('./commands/stores.js')).storesCommand,
  },
  // Two words, like `traits report`.
  'config show': {
    summary: 'The resolved configuration: every value with where it came from (flag, env, clouds.yaml, nova.conf, default), secrets hidden',
    load: async () => (await import('./commands/config-show.js')).configShowCommand,
  },
  completion: {
    summary: 'A bash or zsh completion script: eval "$(ferry completion bash)"',
    // Handed the catalog, rather than importing it: the registry → command edge is the only one between them.
    load: async () => (await import('./commands/completion.js')).createCompletionCommand(COMMANDS),
  },
  prewarm: {
    summary: 'Copy many images into many Glance stores ahead of boots: plan, then copy with bounded concurrency',
    load: async () => (await import('./commands/prewarm.js')).prewarmCommand,
  },
  sync: {
    summary: 'Converge images into the stores a YAML policy declares, and evict in stores over its budgets; report drift (--watch keeps it converged)',
    load: async () => (await import('./commands/sync.js')).syncCommand,
  },
  evict: {
    summary: 'Free space in a store without breaking a boot: evict idle copies, least recently used first, until under --budget',
    load: async () => (await import('./commands/evict.js')).evictCommand,
  },
  traits: {
    summary: "A host's standard Placement traits from its storage config and libvirt capabilities, each with its reason",
    load: async () => (await import('./commands/traits.js')).traitsCommand,
  },
  // Two words: the runner tries `argv[0] argv[1]` before `argv[0]`.
  'traits report': {
    summary: "Make a Placement resource provider carry the host's traits (only ferry's trait families change)",
    load: async () => (await import('./commands/traits-report.js')).traitsReportCommand,
  },
  prefilter: {
    summary: 'The traits a host must have to take an image (nova\'s image prefilters, fixed), and the Placement query',
    load: async () => (await import('./commands/prefilter.js')).prefilterCommand,
  },
  candidates: {
    summary: 'The hosts Placement offers for an image and flavor resources (GET /allocation_candidates), by name',
    load: async () => (await import('./commands/candidates.js')).candidatesCommand,
  },
  explain: {
    summary: 'Host by host: is it a candidate for the image, and if not, which trait or resource keeps it out',
    load: async () => (await import('./commands/explain.js')).explainCommand,
  },
};
