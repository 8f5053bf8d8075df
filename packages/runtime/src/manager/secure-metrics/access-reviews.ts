/**
 * Asking the API server who a bearer token belongs to (TokenReview) and whether that user may do
 * something (SubjectAccessReview): the delegated authentication and authorization a component
 * outside the API server uses, as kube-rbac-proxy and controller-runtime's metrics filter do.
 */

import { defineResource, type KubeObject } from '../../api/types.js';
import type { ApiTransport } from '../../transport/transport.js';

/** Who a token belongs to, as the TokenReview answered. */
export interface ReviewedUser {
  username: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
}

/** What is asked of a user: a non-resource request such as `get /metrics`. */
export interface NonResourceAccess {
  path: string;
  verb: string;
}

/** The two questions delegated to the API server. */
export interface AccessReviews {
  /** The token's user, or undefined when the server does not authenticate it. */
  authenticate(token: string): Promise<ReviewedUser | undefined>;
  /** Whether `user` may make the request, and the authorizer's reason. */
  authorize(user: ReviewedUser, access: NonResourceAccess): Promise<{ allowed: boolean; reason?: string }>;
}

interface TokenReview extends KubeObject {
  spec: { token: string; audiences?: string[] };
  status?: { authenticated?: boolean; user?: ReviewedUser; error?: string };
}
const TokenReview = defineResource<TokenReview>({
  group: 'authentication.k8s.io',
  version: 'v1',
  kind: 'TokenReview',
  plural: 'tokenreviews',
  namespaced: false,
});

interface SubjectAccessReview extends KubeObject {
  spec: {
    user: string;
    uid?: string;
    groups?: string[];
    extra?: Record<string, string[]>;
    nonResourceAttributes: { path: string; verb: string };
  };
  status?: { allowed?: boolean; denied?: boolean; reason?: string; evaluationError?: string };
}
const SubjectAccessReview = defineResource<SubjectAccessReview>({
  group: 'authorization.k8s.io',
  version: 'v1',
  kind: 'SubjectAccessReview',
  plural: 'subjectaccessreviews',
  namespaced: false,
});

/**
 * Reviews through the API server; the process's own identity needs `create` on
 * `tokenreviews.authentication.k8s.io` and `subjectaccessreviews.authorization.k8s.io`.
 */
export function apiAccessReviews(transport: ApiTransport): AccessReviews {
  return {
    async authenticate(token) {
      const review = await transport.create(TokenReview, {
        apiVersion: 'authentication.k8s.io/v1',
        kind: 'TokenReview',
        metadata: {},
        spec: { token },
      } as TokenReview);
      const status = review.status;
      return status?.authenticated && status.user?.username ? status.user : undefined;
    },
    async authorize(user, access) {
      const review = await transport.create(SubjectAccessReview, {
        apiVersion: 'authorization.k8s.io/v1',
        kind: 'SubjectAccessReview',
        metadata: {},
        spec: {
          user: user.username,
          ...(user.uid ? { uid: user.uid } : {}),
          ...(user.groups ? { groups: user.groups } : {}),
          ...(user.extra ? { extra: user.extra } : {}),
          nonResourceAttributes: { path: access.path, verb: access.verb },
        },
      } as SubjectAccessReview);
      const status = review.status;
      return { allowed: status?.allowed === true, reason: status?.reason ?? status?.evaluationError };
    },
  };
}
