/**
 * What a schema cannot refuse about a RebootStack: a version the catalogue does not ship, flags
 * the version's components do not take, an upgrade or protocol switch the version cannot carry
 * out. Pure; each problem becomes a condition, never a crash.
 */
import { PROTOCOL_NAMES, type ProtocolName } from '@capstan/reboot-protocol';
import type { Catalogue, CatalogueEntry } from '../catalogue.js';
import { COMPONENTS, type RebootStack } from './reboot-stack.js';

/** Why a stack cannot be carried out as asked. */
export type ProblemReason =
  | 'UnknownVersion'
  | 'InvalidFlags'
  | 'InvalidProtocol'
  | 'InvalidSettings'
  | 'UnsupportedUpgrade'
  | 'UnsupportedMigration'
  /** Not a spec problem: the API server refused a write (RBAC, admission); retried with backoff. */
  | 'ApplyFailed'
  /** Not a spec problem: a migration has waited on the same thing too long; it goes on waiting. */
  | 'MigrationStalled';

/** One reason a stack is refused, with a message a person can act on. */
export interface StackProblem {
  reason: ProblemReason;
  message: string;
}

/** Flags the operator sets itself: a stack that names them is refused. */
export const RESERVED_FLAGS: readonly string[] = ['protocol', 'leader-elect', 'leader-election-id'];

const FLAG_NAME = /^[a-z][a-z0-9-]{0,62}$/;
const MAX_UNAVAILABLE = /^([1-9][0-9]*|[1-9][0-9]?%|100%)$/;

function flagProblems(stack: RebootStack, entry: CatalogueEntry): string[] {
  const out: string[] = [];
  for (const component of COMPONENTS) {
    const flags = stack.spec[component]?.flags ?? {};
    for (const [name, value] of Object.entries(flags)) {
      if (RESERVED_FLAGS.includes(name)) out.push(`${component}: --${name} is set by the operator`);
      else if (!FLAG_NAME.test(name)) out.push(`${component}: "${name}" is not a flag name`);
      else if (!entry.flags[component].includes(name))
        out.push(`${component}: version ${entry.version} has no flag --${name}`);
      else if (typeof value !== 'string' || /[\n\r\0]/.test(value))
        out.push(`${component}: --${name} needs a one-line string value`);
    }
  }
  return out;
}

function settingsProblems(stack: RebootStack): string[] {
  const out: string[] = [];
  const replicas = stack.spec.coordinator?.replicas;
  if (replicas !== undefined && (!Number.isInteger(replicas) || replicas < 1 || replicas > 10)) {
    out.push(`coordinator.replicas must be an integer from 1 to 10, not ${replicas}`);
  }
  const maxUnavailable = stack.spec.agent?.maxUnavailable;
  if (maxUnavailable !== undefined && !MAX_UNAVAILABLE.test(String(maxUnavailable))) {
    out.push(`agent.maxUnavailable must be a count ≥ 1 or a percentage (1%..100%), not "${maxUnavailable}"`);
  }
  return out;
}

/**
 * The problems of `stack` against the catalogue, given the version and protocol it runs now
 * (`observed`, absent on a fresh install). Empty when the stack can be carried out.
 */
export function validateStack(
  stack: RebootStack,
  catalogue: Catalogue,
  observed: { version?: string; protocol?: ProtocolName } = {},
): StackProblem[] {
  const spec = stack.spec;
  const entry = typeof spec?.version === 'string' ? catalogue.get(spec.version) : undefined;
  if (!entry) {
    return [
      {
        reason: 'UnknownVersion',
        message: `version "${spec?.version}" is not in this operator's catalogue (${catalogue.versions().join(', ')})`,
      },
    ];
  }
  const problems: StackProblem[] = [];
  const protocol = spec.protocol ?? 'capstan';
  if (!(PROTOCOL_NAMES as readonly string[]).includes(protocol)) {
    problems.push({ reason: 'InvalidProtocol', message: `protocol "${protocol}" is not capstan or fluo` });
  }
  const flags = flagProblems(stack, entry);
  if (flags.length > 0) problems.push({ reason: 'InvalidFlags', message: flags.join('; ') });
  const settings = settingsProblems(stack);
  if (settings.length > 0) problems.push({ reason: 'InvalidSettings', message: settings.join('; ') });
  if (observed.version !== undefined && observed.version !== entry.version) {
    if (!entry.upgradesFrom.includes(observed.version)) {
      problems.push({
        reason: 'UnsupportedUpgrade',
        message: `version ${entry.version} cannot upgrade a stack running ${observed.version} (it upgrades from: ${entry.upgradesFrom.join(', ') || 'nothing'})`,
      });
    }
  }
  if (observed.protocol !== undefined && observed.protocol !== protocol && problems.length === 0) {
    const path = `${observed.protocol}->${protocol}` as const;
    if (!entry.migrations.includes(path)) {
      problems.push({
        reason: 'UnsupportedMigration',
        message: `version ${entry.version} cannot migrate a live cluster from ${observed.protocol} to ${protocol} (it migrates: ${entry.migrations.join(', ') || 'nothing'})`,
      });
    }
  }
  return problems;
}
