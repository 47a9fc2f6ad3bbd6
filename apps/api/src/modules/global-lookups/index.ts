export { GlobalLookupsModule } from './global-lookups.module.js';
export {
  type ActiveMembership,
  type ApiKeyCredential,
  type AppTokenCredential,
  GlobalLookups,
  type InvitationCredential,
  type SessionCredential,
} from './global-lookups.read-model.js';
export {
  type CompanionResult,
  companionOf,
  type ComposedCompanion,
  type KeyCompanion,
  KeyCompanions,
  type RequestWithCompanion,
} from './key-companions.js';
