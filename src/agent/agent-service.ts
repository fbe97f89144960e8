// What the agent serves is the host's service (src/host/host-service.ts): its routes are an HTTP face of it. The
// agent's own names for those types, so the server and its tests read in the agent's terms.
export type {
  HostService as AgentService, HostEnsureCall as AgentEnsureCall, HostEnsureAnswer as AgentEnsureAnswer,
  HostHealth as AgentHealth, HealthCheck,
} from '../host/host-service.js';
