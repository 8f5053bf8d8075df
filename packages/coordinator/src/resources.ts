/** The coordinator's kinds as the runtime declares them (generated from the CRD). */
export { RebootGroupType } from './api/generated/reboot-group.js';
