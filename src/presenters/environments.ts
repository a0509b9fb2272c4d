import type { DeploymentReviewDoc } from '../repositories/deploymentReviews.ts';
import type { EnvironmentDoc } from '../repositories/environments.ts';
import type { EnvironmentObject, Review } from '../schemas/environments.ts';

/** An environment with the deployment live in it (the service finds it). */
export type EnvironmentView = EnvironmentDoc & { current_deployment_id: string | null };

export function presentEnvironment(doc: EnvironmentView): EnvironmentObject {
  return {
    name: doc.name,
    id: doc._id,
    project_id: doc.project_id,
    url: doc.url,
    protection: {
      required_approvals: doc.protection.required_approvals,
      reviewers: [...doc.protection.reviewers],
      prevent_self_review: doc.protection.prevent_self_review,
      wait_timer_seconds: doc.protection.wait_timer_seconds,
      branch_patterns: doc.protection.branch_patterns ? [...doc.protection.branch_patterns] : null,
    },
    serial: doc.serial,
    cancel_superseded: doc.cancel_superseded,
    lock: doc.lock ? { reason: doc.lock.reason, locked_by: { type: doc.lock.locked_by.type, id: doc.lock.locked_by.id }, locked_at: doc.lock.locked_at.toISOString() } : null,
    freeze_windows: doc.freeze_windows.map((w) => ({ starts_at: w.starts_at.toISOString(), ends_at: w.ends_at.toISOString(), reason: w.reason })),
    current_deployment_id: doc.current_deployment_id,
    created_at: doc.created_at.toISOString(),
    updated_at: doc.updated_at.toISOString(),
  };
}

export function presentReview(doc: DeploymentReviewDoc): Review {
  return {
    id: doc.review_id,
    deployment_id: doc.deployment_id,
    reviewer: { type: doc.reviewer.type, id: doc.reviewer.id },
    decision: doc.decision,
    comment: doc.comment,
    created_at: doc.created_at.toISOString(),
    updated_at: doc.created_at.toISOString(),
  };
}
