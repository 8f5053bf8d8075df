/**
 * VM affinity rules of a VDC (`/api/vdc/{id}/vmAffinityRules`, `/api/vmAffinityRule/{id}`): the
 * list (one GET), and create, update, delete, each answered with a task. A rule names VMs by
 * reference; VCD wants at least two distinct ones.
 */
import type { DesiredRule, SeenRule } from '../decide/affinity.js';
import type { Task, VcdClient } from './client.js';
import { childOf, esc, listOf, NS, textOf, type XmlNode } from './xml.js';

const RULE_TYPE = 'application/vnd.vmware.vcloud.vmaffinityrule+xml';

/** A VM's site-relative href from its URN. */
const vmHref = (urn: string) => `/api/vApp/vm-${urn.replace(/^urn:vcloud:vm:/, '')}`;

function readRule(node: XmlNode, ovdc: string): SeenRule {
  const refs = listOf(childOf(node, 'VmReferences'), 'VmReference');
  return {
    id: String(node.id ?? ''),
    name: textOf(node.Name) ?? '',
    ovdc,
    href: String(node.href ?? ''),
    enabled: textOf(node.IsEnabled) !== 'false',
    mandatory: textOf(node.IsMandatory) === 'true',
    polarity: textOf(node.Polarity) ?? '',
    members: refs.map((r) => {
      const id = String(r.id ?? '');
      return id.startsWith('urn:vcloud:vm:')
        ? id
        : `urn:vcloud:vm:${/vm-([0-9a-fA-F-]{36})/.exec(String(r.href))?.[1]}`;
    }),
  };
}

/** The VDC's rules (one GET). */
export async function listAffinityRules(vcd: VcdClient, vdcHref: string, ovdc: string): Promise<SeenRule[]> {
  const doc = await vcd.xml('GET', `${vdcHref}/vmAffinityRules`);
  return listOf(childOf(doc, 'VmAffinityRules'), 'VmAffinityRule').map((r) => readRule(r, ovdc));
}

/** The rule's body, elements in VCD's order (VmAffinityRuleType). */
function ruleBody(vcd: VcdClient, rule: DesiredRule): string {
  const base = vcd.session.site.base.href.replace(/\/$/, '');
  const refs = rule.members
    .map(
      (urn) => `<VmReference href="${esc(base + vmHref(urn))}" type="application/vnd.vmware.vcloud.vm+xml"/>`,
    )
    .join('');
  return (
    `<?xml version="1.0" encoding="UTF-8"?><VmAffinityRule xmlns="${NS.vcloud}">` +
    `<Name>${esc(rule.name)}</Name><IsEnabled>true</IsEnabled>` +
    `<IsMandatory>${rule.mandatory}</IsMandatory><Polarity>Anti-Affinity</Polarity>` +
    `<VmReferences>${refs}</VmReferences></VmAffinityRule>`
  );
}

/** Creates an anti-affinity rule in the VDC. */
export const createAffinityRule = (vcd: VcdClient, vdcHref: string, rule: DesiredRule): Promise<Task> =>
  vcd.startTask('POST', `${vdcHref}/vmAffinityRules`, ruleBody(vcd, rule), RULE_TYPE);

/** Sets a rule's members and strength (the whole rule is sent, as VCD replaces it). */
export const updateAffinityRule = (vcd: VcdClient, seen: SeenRule, rule: DesiredRule): Promise<Task> =>
  vcd.startTask('PUT', seen.href, ruleBody(vcd, rule), RULE_TYPE);

/** Deletes a rule. */
export const deleteAffinityRule = (vcd: VcdClient, seen: SeenRule): Promise<Task> =>
  vcd.startTask('DELETE', seen.href);
