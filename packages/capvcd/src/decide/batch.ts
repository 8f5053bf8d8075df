/**
 * Which machines' VMs join the cluster's vApp in the next recompose. The machines of a cluster
 * share one vApp, and a recompose locks it for as long as VCD clones: one VM per recompose made
 * every added worker wait for all the ones before it. VCD takes several SourcedItems in one
 * RecomposeVAppParams, each VM named by its own item, and checks them all before it starts the one
 * task; so machines that wait for the same vApp go in together, each VM still its own.
 *
 * The choice is pure: oldest first, so every waiting machine is in a batch after at most as many
 * batches as there are machines ahead of it; at most `cap` VMs; never a VM whose name the vApp
 * already holds (VCD would refuse the whole batch, DUPLICATE_NAME) nor two of one name; a machine
 * whose last batch VCD refused goes alone, so one bad item cannot keep refusing the others.
 */

/** A machine waiting for its VM to be made in the vApp. */
export interface BatchCandidate {
  /** The VCDMachine's key (namespace/name). */
  machine: string;
  /** The VM's name: deterministic, how later reconciles find it. */
  vmName: string;
  /** When the machine began waiting (ms); older goes first. */
  joinedAt: number;
  /** A batch it was in was refused: it is sent by itself. */
  alone: boolean;
}

/** The default most VMs in one recompose. */
export const DEFAULT_BATCH_CAP = 25;

const older = (a: BatchCandidate, b: BatchCandidate): number =>
  a.joinedAt - b.joinedAt || (a.machine < b.machine ? -1 : a.machine > b.machine ? 1 : 0);

/**
 * The next batch from `candidates`, given the VM names the vApp already holds (`present`, as just
 * read) and the most VMs one recompose may carry (`cap`, at least 1). Empty only when no candidate
 * may be sent.
 */
export function nextBatch(
  candidates: readonly BatchCandidate[],
  present: ReadonlySet<string>,
  cap: number,
): BatchCandidate[] {
  const eligible = candidates.filter((c) => !present.has(c.vmName)).sort(older);
  const head = eligible[0];
  if (!head) return [];
  if (head.alone) return [head];
  const batch = [head];
  const machines = new Set([head.machine]);
  const names = new Set([head.vmName]);
  for (const c of eligible) {
    if (batch.length >= Math.max(1, cap)) break;
    if (c.alone || machines.has(c.machine) || names.has(c.vmName)) continue;
    batch.push(c);
    machines.add(c.machine);
    names.add(c.vmName);
  }
  return batch;
}

/**
 * Whether a refused recompose says something about its items (a bad one among them), so its
 * machines go alone next time: a busy vApp, a throttle, a server fault or a lost connection
 * (`transient`) says nothing about them, and a batch of one has no other item to spare.
 */
export const refusalBlamesItems = (transient: boolean, batchSize: number): boolean =>
  !transient && batchSize > 1;
