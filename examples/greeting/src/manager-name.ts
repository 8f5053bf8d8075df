/** The Greeting controller's name wherever the cluster sees it: its Lease, ServiceAccount, roles and command. */
export const GREETING_MANAGER = 'greeting-controller';
