/** How the provider tests read a VCDMachine's conditions. */
import type { VCDMachine } from '@capstan/capvcd';

/** A VCDMachine's conditions in one line, as the tests match and print them. */
export const conditionText = (m: VCDMachine) =>
  (m.status?.conditions ?? []).map((c) => `${c.type}=${c.status}/${c.reason}: ${c.message}`).join('; ');
