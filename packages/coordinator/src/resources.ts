/** The coordinator's kinds as the runtime declares them. */
import { defineResource } from '@capstan/runtime';
import { type RebootGroup, rebootGroupResource } from './api/reboot-group.js';

/** `RebootGroup` (`reboot.capstan.dev/v1alpha1`, cluster-scoped) for the client, cache and builder. */
export const RebootGroupType = defineResource<RebootGroup>(rebootGroupResource);
