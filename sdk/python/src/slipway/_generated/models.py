# File generated from our OpenAPI document (Slipway API 1.0.0) by scripts/generate.py.
# Do not edit: run scripts/generate.sh BASE_URL (the suite fails when this file differs from what the server serves).

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field, RootModel
from typing_extensions import TypeAliasType


class Actor(BaseModel):
    type: Literal['user', 'api_key', 'client', 'system', 'federated']
    id: str


class WebhookPayload(BaseModel):
    id: Annotated[str, Field(examples=['evt_01jd8x4m2c7p9r1t3v5x7z9b1d'])]
    type: Annotated[str, Field(examples=['deployment.status_changed'])]
    """
    An event type, or `webhook.ping` for a ping.
    """
    actor: Actor
    project_id: str | None
    data: dict[str, Any]
    """
    What changed; never secret values.
    """
    created_at: Annotated[AwareDatetime, Field(examples=['2026-01-15T09:30:00.000Z'])]
    """
    ISO 8601 UTC with milliseconds.
    """


class Detail(BaseModel):
    model_config = ConfigDict(
        extra='forbid',
    )
    field: str
    message: str


class Error1(BaseModel):
    model_config = ConfigDict(
        extra='forbid',
    )
    code: Literal['invalid_request', 'unauthorized', 'invalid_token', 'invalid_dpop_proof', 'use_dpop_nonce', 'insufficient_scope', 'forbidden', 'quota_exceeded', 'not_found', 'method_not_allowed', 'request_timeout', 'conflict', 'invalid_transition', 'project_not_active', 'branch_not_allowed', 'environment_locked', 'environment_frozen', 'environment_busy', 'deployment_not_active', 'deployment_finished', 'log_full', 'secret_unreadable', 'payload_too_large', 'unsupported_media_type', 'validation_failed', 'idempotency_key_reused', 'rate_limited', 'headers_too_large', 'internal_error', 'service_unavailable']
    """
    Stable machine-readable code.
    """
    message: str
    """
    Human-readable description; may change.
    """
    status: int
    """
    The HTTP status of the response.
    """
    request_id: str
    """
    Same as the X-Request-Id response header.
    """
    details: list[Detail] | None = None
    """
    Per-field problems (validation_failed, invalid_request).
    """


class Error(BaseModel):
    model_config = ConfigDict(
        extra='forbid',
    )
    error: Error1


class Project(BaseModel):
    id: Annotated[
        str,
        Field(
            examples=['proj_01jd8x3k9q7m2v4t6r8w0y1z3b'],
            pattern='^proj_[0-9a-hjkmnp-tv-z]{26}$',
        ),
    ]
    """
    Project id.
    """
    name: str
    status: Literal['active', 'paused', 'archived']
    """
    `active` ⇄ `paused`; `active`/`paused` → `archived`; `archived` → `active`.
    """
    deploy_target: Literal['aws', 'azure', 'gcp', 'kubernetes', 'vercel', 'netlify', 'cloudflare', 'fly', 'render', 'heroku'] | None
    """
    The platform the project deploys to.
    """
    created_at: Annotated[AwareDatetime, Field(examples=['2026-01-15T09:30:00.000Z'])]
    """
    ISO 8601 UTC with milliseconds.
    """
    updated_at: Annotated[AwareDatetime, Field(examples=['2026-01-15T09:30:00.000Z'])]
    """
    ISO 8601 UTC with milliseconds.
    """


class Pagination(BaseModel):
    page: Annotated[int, Field(ge=1)]
    per_page: Annotated[int, Field(ge=1, le=100)]
    total: Annotated[int, Field(ge=0)]
    """
    Number of items across all pages.
    """


class CreateProject(BaseModel):
    model_config = ConfigDict(
        extra='forbid',
    )
    name: Annotated[
        str,
        Field(
            examples=['checkout-service'],
            pattern='^[\\t\\n\\v\\f\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff]*[^\\t\\n\\v\\f\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff\\u0000-\\u001f\\u007f-\\u009f\\u202a-\\u202e\\u2066-\\u2069](?:[^\\u0000-\\u001f\\u007f-\\u009f\\u202a-\\u202e\\u2066-\\u2069]{0,98}[^\\t\\n\\v\\f\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff\\u0000-\\u001f\\u007f-\\u009f\\u202a-\\u202e\\u2066-\\u2069])?[\\t\\n\\v\\f\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff]*$',
        ),
    ]
    """
    Unique in the account, ignoring case. 1–100 characters after trimming, no control characters.
    """
    deploy_target: Literal['aws', 'azure', 'gcp', 'kubernetes', 'vercel', 'netlify', 'cloudflare', 'fly', 'render', 'heroku'] | None = (
        None
    )
    """
    The platform the project deploys to.
    """


class UpdateProject(BaseModel):
    """
    Archived projects accept only `{"status": "active"}`.
    """

    model_config = ConfigDict(
        extra='forbid',
    )
    name: Annotated[
        str | None,
        Field(
            examples=['checkout-service'],
            pattern='^[\\t\\n\\v\\f\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff]*[^\\t\\n\\v\\f\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff\\u0000-\\u001f\\u007f-\\u009f\\u202a-\\u202e\\u2066-\\u2069](?:[^\\u0000-\\u001f\\u007f-\\u009f\\u202a-\\u202e\\u2066-\\u2069]{0,98}[^\\t\\n\\v\\f\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff\\u0000-\\u001f\\u007f-\\u009f\\u202a-\\u202e\\u2066-\\u2069])?[\\t\\n\\v\\f\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff]*$',
        ),
    ] = None
    """
    Unique in the account, ignoring case. 1–100 characters after trimming, no control characters.
    """
    deploy_target: Literal['aws', 'azure', 'gcp', 'kubernetes', 'vercel', 'netlify', 'cloudflare', 'fly', 'render', 'heroku'] | None = (
        None
    )
    """
    The platform the project deploys to.
    """
    status: Literal['active', 'paused', 'archived'] | None = None
    """
    `active` ⇄ `paused`; `active`/`paused` → `archived`; `archived` → `active`.
    """


class CreatedBy(BaseModel):
    type: Literal['user', 'api_key', 'client', 'system', 'federated']
    id: str


class Deployment(BaseModel):
    id: Annotated[
        str,
        Field(
            examples=['dep_01jd8x7p2c4e6g8j0k2m4n6q8s'],
            pattern='^dep_[0-9a-hjkmnp-tv-z]{26}$',
        ),
    ]
    """
    Deployment id.
    """
    project_id: Annotated[
        str,
        Field(
            examples=['proj_01jd8x3k9q7m2v4t6r8w0y1z3b'],
            pattern='^proj_[0-9a-hjkmnp-tv-z]{26}$',
        ),
    ]
    """
    Project id.
    """
    environment: str
    branch: str
    commit_sha: str | None
    status: Literal['waiting', 'queued', 'building', 'deploying', 'succeeded', 'failed', 'canceled', 'superseded', 'rejected']
    """
    `queued` → `building` → `deploying` → `succeeded`; `queued`/`building`/`deploying` → `failed` or `canceled`; `succeeded` → `superseded` when a newer deployment to the same environment succeeds. With approvals or a wait timer a deployment starts `waiting`: the service queues it when they are met, a reviewer may end it as `rejected`, and it may be `canceled`.
    """
    status_message: str | None
    url: str | None
    created_by: CreatedBy
    kind: Literal['deploy', 'redeploy', 'rollback', 'promote']
    """
    `deploy`; `redeploy` (the same branch and commit again), `promote` (to another environment), `rollback`.
    """
    source_deployment_id: Annotated[
        str | None,
        Field(
            examples=['dep_01jd8x7p2c4e6g8j0k2m4n6q8s'],
            pattern='^dep_[0-9a-hjkmnp-tv-z]{26}$',
        ),
    ]
    """
    The deployment a redeploy, promote or rollback repeats.
    """
    created_at: Annotated[AwareDatetime, Field(examples=['2026-01-15T09:30:00.000Z'])]
    """
    ISO 8601 UTC with milliseconds.
    """
    updated_at: Annotated[AwareDatetime, Field(examples=['2026-01-15T09:30:00.000Z'])]
    """
    ISO 8601 UTC with milliseconds.
    """
    started_at: Annotated[
        AwareDatetime | None, Field(examples=['2026-01-15T09:30:00.000Z'])
    ]
    """
    ISO 8601 UTC with milliseconds.
    """
    finished_at: Annotated[
        AwareDatetime | None, Field(examples=['2026-01-15T09:30:00.000Z'])
    ]
    """
    ISO 8601 UTC with milliseconds.
    """


class CreateDeployment(BaseModel):
    model_config = ConfigDict(
        extra='forbid',
        regex_engine="python-re",
    )
    environment: Annotated[
        str, Field(examples=['production'], pattern='^[a-z0-9][a-z0-9-]{0,62}$')
    ]
    """
    Target environment.
    """
    branch: Annotated[
        str,
        Field(
            examples=['main'],
            max_length=255,
            pattern='^(?!(?:@|HEAD)$)(?![-/.])(?![\\s\\S]*(?:\\.\\.|@\\{|\\/\\/|\\/\\.|\\.lock\\/|\\.lock$|\\.$|\\/$))[^\\x00-\\x20\\x7f~^:?*\\[\\\\]{1,255}$',
        ),
    ]
    """
    Source branch: a valid git ref name (`git check-ref-format --branch`), at most 255 characters.
    """
    commit_sha: Annotated[
        str | None,
        Field(
            examples=['9fceb02d0ae598e95dc970b74767f19372d61af8'],
            pattern='^[0-9a-fA-F]{7,40}$',
        ),
    ] = None
    """
    Commit to deploy, 7–40 hex characters.
    """
    override_freeze: Annotated[bool | None, Field(examples=[True])] = None
    """
    Deploy inside a freeze window (admin scope); inside one, an override without `reason` is refused (`environment_frozen`).
    """
    reason: Annotated[
        str | None,
        Field(
            examples=['Hotfix for incident 42'],
            pattern='^[\\t\\n\\v\\f\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff]*[^\\t\\n\\v\\f\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff\\u0000-\\u001f\\u007f-\\u009f\\u202a-\\u202e\\u2066-\\u2069](?:[^\\u0000-\\u001f\\u007f-\\u009f\\u202a-\\u202e\\u2066-\\u2069]{0,498}[^\\t\\n\\v\\f\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff\\u0000-\\u001f\\u007f-\\u009f\\u202a-\\u202e\\u2066-\\u2069])?[\\t\\n\\v\\f\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff]*$',
        ),
    ] = None
    """
    Why the freeze is overridden (recorded in the event).
    """


class UpdateDeployment(BaseModel):
    model_config = ConfigDict(
        extra='forbid',
    )
    status: Annotated[
        Literal['waiting', 'queued', 'building', 'deploying', 'succeeded', 'failed', 'canceled', 'superseded', 'rejected'],
        Field(examples=['building']),
    ]
    """
    `queued` → `building` → `deploying` → `succeeded`; `queued`/`building`/`deploying` → `failed` or `canceled`; `succeeded` → `superseded` when a newer deployment to the same environment succeeds. With approvals or a wait timer a deployment starts `waiting`: the service queues it when they are met, a reviewer may end it as `rejected`, and it may be `canceled`.
    """
    status_message: Annotated[
        str | None,
        Field(
            examples=['Building image for 9fceb02 on GitHub Actions'], max_length=1000
        ),
    ] = None
    """
    Free text from the deployer, at most 1,000 characters.
    """
    url: Annotated[
        str | None,
        Field(
            examples=['https://checkout-7f3a.example.app'],
            max_length=2048,
            pattern='^[hH][tT][tT][pP][sS]?:\\/\\/(?:(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])(?:\\.(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])){3}|(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\\.)*[A-Za-z](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)(?::(?:6553[0-5]|655[0-2][0-9]|65[0-4][0-9]{2}|6[0-4][0-9]{3}|[1-5][0-9]{4}|[1-9][0-9]{0,3}|0))?(?:[/?#][\\x21-\\x7e]*)?$',
        ),
    ] = None
    """
    Where the deployment can be reached: an absolute http(s) URL with a host name or IPv4 address, no user name or password, non-ASCII percent-encoded; at most 2,048 characters.
    """


class Redeploy(BaseModel):
    model_config = ConfigDict(
        extra='forbid',
    )
    environment: Annotated[
        str | None, Field(examples=['production'], pattern='^[a-z0-9][a-z0-9-]{0,62}$')
    ] = None
    """
    Where to deploy the same branch and commit: another environment makes it a `promote`. Default: the deployment’s own.
    """
    override_freeze: Annotated[bool | None, Field(examples=[True])] = None
    """
    Deploy inside a freeze window (admin scope); inside one, an override without `reason` is refused (`environment_frozen`).
    """
    reason: Annotated[
        str | None,
        Field(
            examples=['Hotfix for incident 42'],
            pattern='^[\\t\\n\\v\\f\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff]*[^\\t\\n\\v\\f\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff\\u0000-\\u001f\\u007f-\\u009f\\u202a-\\u202e\\u2066-\\u2069](?:[^\\u0000-\\u001f\\u007f-\\u009f\\u202a-\\u202e\\u2066-\\u2069]{0,498}[^\\t\\n\\v\\f\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff\\u0000-\\u001f\\u007f-\\u009f\\u202a-\\u202e\\u2066-\\u2069])?[\\t\\n\\v\\f\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff]*$',
        ),
    ] = None
    """
    Why the freeze is overridden (recorded in the event).
    """


class Reviewer(BaseModel):
    type: Literal['user', 'api_key', 'client', 'system', 'federated']
    id: str


class Review(BaseModel):
    id: Annotated[
        str,
        Field(
            examples=['rev_01jd8x9q3s5v7w9y1a3c5e7g9j'],
            pattern='^rev_[0-9a-hjkmnp-tv-z]{26}$',
        ),
    ]
    """
    Review id.
    """
    deployment_id: Annotated[
        str,
        Field(
            examples=['dep_01jd8x7p2c4e6g8j0k2m4n6q8s'],
            pattern='^dep_[0-9a-hjkmnp-tv-z]{26}$',
        ),
    ]
    """
    Deployment id.
    """
    reviewer: Annotated[
        Reviewer,
        Field(examples=[{'type': 'user', 'id': 'usr_01jd8x0a2b4c6d8e0f2g4h6j8k'}]),
    ]
    decision: Literal['approve', 'reject']
    comment: str | None
    created_at: Annotated[AwareDatetime, Field(examples=['2026-01-15T09:30:00.000Z'])]
    """
    ISO 8601 UTC with milliseconds.
    """
    updated_at: Annotated[AwareDatetime, Field(examples=['2026-01-15T09:30:00.000Z'])]
    """
    ISO 8601 UTC with milliseconds.
    """


class CreateReview(BaseModel):
    model_config = ConfigDict(
        extra='forbid',
    )
    decision: Annotated[Literal['approve', 'reject'], Field(examples=['approve'])]
    """
    One reject ends the deployment as `rejected`.
    """
    comment: Annotated[
        str | None,
        Field(
            examples=['Checked the migration.'],
            pattern='^[\\t\\n\\v\\f\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff]*[^\\t\\n\\v\\f\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff\\u202a-\\u202e\\u2066-\\u2069](?:[^\\u202a-\\u202e\\u2066-\\u2069]{0,998}[^\\t\\n\\v\\f\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff\\u202a-\\u202e\\u2066-\\u2069])?[\\t\\n\\v\\f\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff]*$',
        ),
    ] = None
    """
    At most 1,000 characters.
    """


class ReviewList(BaseModel):
    data: list[Review]
    pagination: Pagination


class Variable(BaseModel):
    key: str
    value: str
    secret: bool


class DeploymentConfiguration(BaseModel):
    deployment_id: Annotated[
        str,
        Field(
            examples=['dep_01jd8x7p2c4e6g8j0k2m4n6q8s'],
            pattern='^dep_[0-9a-hjkmnp-tv-z]{26}$',
        ),
    ]
    """
    Deployment id.
    """
    environment: str
    variables: list[Variable]
    """
    Every variable of the environment, secret values in clear.
    """


class AppendLogResult(BaseModel):
    first_seq: Annotated[int, Field(examples=[101], ge=1)]
    """
    Number of the request's first line in the deployment's log.
    """
    last_seq: Annotated[int, Field(examples=[150], ge=1)]
    """
    Number of its last line: the lines are numbered first_seq..last_seq, with no other line between.
    """


class Line(BaseModel):
    model_config = ConfigDict(
        extra='forbid',
    )
    text: Annotated[str, Field(examples=['Step 3/9 : RUN npm ci'], max_length=8192)]
    """
    The line, at most 8 KiB in UTF-8. Any value of a secret configuration of the project (8 characters or longer) in it is stored as `***`.
    """
    stream: Literal['stdout', 'stderr', 'system'] | None = None
    """
    `stdout` (the default), `stderr`, or `system` (said by the deployer or by Slipway itself).
    """
    timestamp: Annotated[
        AwareDatetime | None, Field(examples=['2026-01-15T09:30:00.000Z'])
    ] = None
    """
    When the deployer saw the line (ISO 8601); default: when Slipway received it.
    """


class AppendLog(BaseModel):
    model_config = ConfigDict(
        extra='forbid',
    )
    lines: Annotated[list[Line], Field(max_length=1000, min_length=1)]
    """
    1 to 1000 lines, in order; the whole request at most 1 MiB.
    """


class LogLine(BaseModel):
    seq: Annotated[int, Field(ge=1)]
    stream: Literal['stdout', 'stderr', 'system']
    """
    `stdout` (the default), `stderr`, or `system` (said by the deployer or by Slipway itself).
    """
    text: str
    timestamp: Annotated[AwareDatetime, Field(examples=['2026-01-15T09:30:00.000Z'])]
    """
    ISO 8601 UTC with milliseconds.
    """


class Protection(BaseModel):
    required_approvals: int
    reviewers: list[str]
    prevent_self_review: bool
    wait_timer_seconds: int
    branch_patterns: list[str] | None


class LockedBy(BaseModel):
    type: Literal['user', 'api_key', 'client', 'system', 'federated']
    id: str


class Lock(BaseModel):
    reason: str
    locked_by: LockedBy
    locked_at: Annotated[AwareDatetime, Field(examples=['2026-01-15T09:30:00.000Z'])]
    """
    ISO 8601 UTC with milliseconds.
    """


class FreezeWindow(BaseModel):
    starts_at: Annotated[AwareDatetime, Field(examples=['2026-01-15T09:30:00.000Z'])]
    """
    ISO 8601 UTC with milliseconds.
    """
    ends_at: Annotated[AwareDatetime, Field(examples=['2026-01-15T09:30:00.000Z'])]
    """
    ISO 8601 UTC with milliseconds.
    """
    reason: str


class Environment(BaseModel):
    name: Annotated[str, Field(examples=['staging'])]
    id: Annotated[
        str,
        Field(
            examples=['env_01jd8x7p2c4e6g8j0k2m4n6q8s'],
            pattern='^env_[0-9a-hjkmnp-tv-z]{26}$',
        ),
    ]
    """
    Environment id.
    """
    project_id: Annotated[
        str,
        Field(
            examples=['proj_01jd8x3k9q7m2v4t6r8w0y1z3b'],
            pattern='^proj_[0-9a-hjkmnp-tv-z]{26}$',
        ),
    ]
    """
    Project id.
    """
    url: str | None
    protection: Protection
    serial: bool
    cancel_superseded: bool
    lock: Lock | None
    freeze_windows: list[FreezeWindow]
    current_deployment_id: Annotated[
        str | None,
        Field(
            examples=['dep_01jd8x7p2c4e6g8j0k2m4n6q8s'],
            pattern='^dep_[0-9a-hjkmnp-tv-z]{26}$',
        ),
    ]
    """
    The deployment that succeeded last and is live.
    """
    created_at: Annotated[AwareDatetime, Field(examples=['2026-01-15T09:30:00.000Z'])]
    """
    ISO 8601 UTC with milliseconds.
    """
    updated_at: Annotated[AwareDatetime, Field(examples=['2026-01-15T09:30:00.000Z'])]
    """
    ISO 8601 UTC with milliseconds.
    """


class FreezeWindow1(BaseModel):
    model_config = ConfigDict(
        extra='forbid',
    )
    starts_at: Annotated[AwareDatetime, Field(examples=['2099-12-20T00:00:00Z'])]
    """
    Start (ISO 8601).
    """
    ends_at: Annotated[AwareDatetime, Field(examples=['2100-01-02T00:00:00Z'])]
    """
    End (ISO 8601), after `starts_at`.
    """
    reason: Annotated[
        str,
        Field(
            examples=['Holiday freeze'],
            pattern='^[\\t\\n\\v\\f\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff]*[^\\t\\n\\v\\f\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff\\u0000-\\u001f\\u007f-\\u009f\\u202a-\\u202e\\u2066-\\u2069](?:[^\\u0000-\\u001f\\u007f-\\u009f\\u202a-\\u202e\\u2066-\\u2069]{0,498}[^\\t\\n\\v\\f\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff\\u0000-\\u001f\\u007f-\\u009f\\u202a-\\u202e\\u2066-\\u2069])?[\\t\\n\\v\\f\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff]*$',
        ),
    ]
    """
    Why, 1–500 characters.
    """


class Reviewer1(RootModel[str]):
    root: Annotated[
        str,
        Field(
            examples=['admin'],
            pattern='^(?:usr_[0-9a-hjkmnp-tv-z]{26}|viewer|developer|admin|owner)$',
        ),
    ]
    """
    A user id (`usr_…`) or a role (`viewer`, `developer`, `admin`, `owner`).
    """


class BranchPattern(RootModel[str]):
    root: Annotated[str, Field(pattern='^[^\\x00-\\x20\\x7f~^:?\\[\\\\]{1,255}$')]


class ProtectionInput(BaseModel):
    model_config = ConfigDict(
        extra='forbid',
    )
    required_approvals: Annotated[int | None, Field(examples=[2], ge=0, le=6)] = None
    """
    Approvals a deployment needs before it is queued, 0–6.
    """
    reviewers: Annotated[
        list[Reviewer1] | None,
        Field(examples=[['usr_01jd8x0a2b4c6d8e0f2g4h6j8k', 'admin']], max_length=50),
    ] = None
    """
    Who may review: user ids and/or roles. Empty: any admin or owner of the account.
    """
    prevent_self_review: Annotated[bool | None, Field(examples=[True])] = None
    """
    The deployment’s creator cannot approve it.
    """
    wait_timer_seconds: Annotated[
        int | None, Field(examples=[600], ge=0, le=2592000)
    ] = None
    """
    Seconds to wait after the last needed approval (or after creation, without approvals), 0–2,592,000.
    """
    branch_patterns: Annotated[
        list[BranchPattern] | None,
        Field(examples=[['main', 'release/*']], max_length=50),
    ] = None
    """
    Globs of the branches admitted: `*` within a path segment, `**` across segments. `null`: any branch.
    """


class UpdateEnvironment(BaseModel):
    model_config = ConfigDict(
        extra='forbid',
    )
    url: Annotated[
        str | None,
        Field(
            examples=['https://checkout.example.com'],
            max_length=2048,
            pattern='^[hH][tT][tT][pP][sS]?:\\/\\/(?:(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])(?:\\.(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])){3}|(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\\.)*[A-Za-z](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)(?::(?:6553[0-5]|655[0-2][0-9]|65[0-4][0-9]{2}|6[0-4][0-9]{3}|[1-5][0-9]{4}|[1-9][0-9]{0,3}|0))?(?:[/?#][\\x21-\\x7e]*)?$',
        ),
    ] = None
    """
    Where the environment is reached, an absolute http(s) URL.
    """
    protection: ProtectionInput | None = None
    serial: Annotated[bool | None, Field(examples=[True])] = None
    """
    At most one deployment in `building` or `deploying` at a time.
    """
    cancel_superseded: Annotated[bool | None, Field(examples=[False])] = None
    """
    A new deployment cancels the older `waiting` and `queued` ones.
    """
    freeze_windows: Annotated[list[FreezeWindow1] | None, Field(max_length=50)] = None
    """
    Times no deployment may be created (except an admin override).
    """


class LockEnvironment(BaseModel):
    model_config = ConfigDict(
        extra='forbid',
    )
    reason: Annotated[
        str,
        Field(
            examples=['Incident 42 in progress'],
            pattern='^[\\t\\n\\v\\f\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff]*[^\\t\\n\\v\\f\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff\\u0000-\\u001f\\u007f-\\u009f\\u202a-\\u202e\\u2066-\\u2069](?:[^\\u0000-\\u001f\\u007f-\\u009f\\u202a-\\u202e\\u2066-\\u2069]{0,498}[^\\t\\n\\v\\f\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff\\u0000-\\u001f\\u007f-\\u009f\\u202a-\\u202e\\u2066-\\u2069])?[\\t\\n\\v\\f\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff]*$',
        ),
    ]
    """
    Why, 1–500 characters.
    """


class Rollback(BaseModel):
    model_config = ConfigDict(
        extra='forbid',
    )
    deployment_id: Annotated[
        str | None,
        Field(
            examples=['dep_01jd8x7p2c4e6g8j0k2m4n6q8s'],
            pattern='^dep_[0-9a-hjkmnp-tv-z]{26}$',
        ),
    ] = None
    """
    The deployment to redeploy; default: the one that succeeded before the current one.
    """
    override_freeze: Annotated[bool | None, Field(examples=[True])] = None
    """
    Deploy inside a freeze window (admin scope); inside one, an override without `reason` is refused (`environment_frozen`).
    """
    reason: Annotated[
        str | None,
        Field(
            examples=['Hotfix for incident 42'],
            pattern='^[\\t\\n\\v\\f\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff]*[^\\t\\n\\v\\f\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff\\u0000-\\u001f\\u007f-\\u009f\\u202a-\\u202e\\u2066-\\u2069](?:[^\\u0000-\\u001f\\u007f-\\u009f\\u202a-\\u202e\\u2066-\\u2069]{0,498}[^\\t\\n\\v\\f\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff\\u0000-\\u001f\\u007f-\\u009f\\u202a-\\u202e\\u2066-\\u2069])?[\\t\\n\\v\\f\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff]*$',
        ),
    ] = None
    """
    Why the freeze is overridden (recorded in the event).
    """


class Configuration(BaseModel):
    id: Annotated[
        str,
        Field(
            examples=['cfg_01jd8y2b6n4q8s0v2x4z6a8c0e'],
            pattern='^cfg_[0-9a-hjkmnp-tv-z]{26}$',
        ),
    ]
    """
    Configuration id.
    """
    project_id: Annotated[
        str,
        Field(
            examples=['proj_01jd8x3k9q7m2v4t6r8w0y1z3b'],
            pattern='^proj_[0-9a-hjkmnp-tv-z]{26}$',
        ),
    ]
    """
    Project id.
    """
    environment: Annotated[str, Field(examples=['production'])]
    key: Annotated[str, Field(examples=['DATABASE_URL'])]
    value: Annotated[str | None, Field(examples=[None])]
    """
    The value; `null` for a secret unless revealed.
    """
    secret: bool
    created_at: Annotated[AwareDatetime, Field(examples=['2026-01-15T09:30:00.000Z'])]
    """
    ISO 8601 UTC with milliseconds.
    """
    updated_at: Annotated[AwareDatetime, Field(examples=['2026-01-15T09:30:00.000Z'])]
    """
    ISO 8601 UTC with milliseconds.
    """


class CreateConfiguration(BaseModel):
    model_config = ConfigDict(
        extra='forbid',
    )
    environment: Annotated[
        str, Field(examples=['production'], pattern='^[a-z0-9][a-z0-9-]{0,62}$')
    ]
    """
    Target environment.
    """
    key: Annotated[
        str,
        Field(
            examples=['DATABASE_URL'],
            max_length=256,
            pattern='^[A-Za-z_][A-Za-z0-9_]{0,255}$',
        ),
    ]
    """
    Variable name: letters, digits and `_`, not starting with a digit, at most 256 characters. Unique per project and environment.
    """
    value: Annotated[
        str, Field(examples=['postgres://app@db.internal:5432/app'], max_length=32768)
    ]
    """
    The value, at most 32 KiB (UTF-8).
    """
    secret: Annotated[bool | None, Field(examples=[True])] = False
    """
    Secret values are encrypted at rest (AES-256-GCM) and returned as `null` unless revealed. A secret cannot be made non-secret.
    """


class UpdateConfiguration(BaseModel):
    """
    `key` and `environment` are fixed. `{"secret": true}` encrypts the current value; `{"secret": false}` on a secret is refused.
    """

    model_config = ConfigDict(
        extra='forbid',
    )
    value: Annotated[
        str | None,
        Field(examples=['postgres://app@db.internal:5432/app'], max_length=32768),
    ] = None
    """
    The value, at most 32 KiB (UTF-8).
    """
    secret: Annotated[bool | None, Field(examples=[True])] = None
    """
    Secret values are encrypted at rest (AES-256-GCM) and returned as `null` unless revealed. A secret cannot be made non-secret.
    """


class ApiKey(BaseModel):
    """
    The secret itself is never part of this object.
    """

    id: Annotated[
        str,
        Field(
            examples=['key_01jd8z4c8p6r0t2v4x6z8b0d2f'],
            pattern='^key_[0-9a-hjkmnp-tv-z]{26}$',
        ),
    ]
    """
    API key id (stays the same across rotations).
    """
    name: Annotated[str, Field(examples=['GitHub Actions deploy'])]
    project_id: Annotated[
        str,
        Field(
            examples=['proj_01jd8x3k9q7m2v4t6r8w0y1z3b'],
            pattern='^proj_[0-9a-hjkmnp-tv-z]{26}$',
        ),
    ]
    """
    Project id.
    """
    scopes: Annotated[
        list[Literal['read', 'write', 'admin']], Field(examples=[['read', 'write']])
    ]
    prefix: Annotated[str, Field(examples=['slw_7Gq2'])]
    """
    First 8 characters of the current secret.
    """
    last_four: Annotated[str, Field(examples=['x9Qa'])]
    """
    Last 4 characters of the current secret.
    """
    status: Literal['active', 'revoked', 'expired']
    created_at: Annotated[AwareDatetime, Field(examples=['2026-01-15T09:30:00.000Z'])]
    """
    ISO 8601 UTC with milliseconds.
    """
    updated_at: Annotated[AwareDatetime, Field(examples=['2026-01-15T09:30:00.000Z'])]
    """
    ISO 8601 UTC with milliseconds.
    """
    created_by: Annotated[
        CreatedBy,
        Field(examples=[{'type': 'user', 'id': 'usr_01jd8x0a2b4c6d8e0f2g4h6j8k'}]),
    ]
    last_used_at: Annotated[
        AwareDatetime | None, Field(examples=['2026-01-15T09:30:00.000Z'])
    ]
    """
    Last successful authentication, to the minute.
    """
    expires_at: Annotated[
        AwareDatetime | None, Field(examples=['2026-01-15T09:30:00.000Z'])
    ]
    """
    ISO 8601 UTC with milliseconds.
    """
    rotated_at: Annotated[
        AwareDatetime | None, Field(examples=['2026-01-15T09:30:00.000Z'])
    ]
    """
    ISO 8601 UTC with milliseconds.
    """


class IssuedApiKey(BaseModel):
    id: Annotated[
        str,
        Field(
            examples=['key_01jd8z4c8p6r0t2v4x6z8b0d2f'],
            pattern='^key_[0-9a-hjkmnp-tv-z]{26}$',
        ),
    ]
    """
    API key id (stays the same across rotations).
    """
    name: Annotated[str, Field(examples=['GitHub Actions deploy'])]
    project_id: Annotated[
        str,
        Field(
            examples=['proj_01jd8x3k9q7m2v4t6r8w0y1z3b'],
            pattern='^proj_[0-9a-hjkmnp-tv-z]{26}$',
        ),
    ]
    """
    Project id.
    """
    scopes: Annotated[
        list[Literal['read', 'write', 'admin']], Field(examples=[['read', 'write']])
    ]
    prefix: Annotated[str, Field(examples=['slw_7Gq2'])]
    """
    First 8 characters of the current secret.
    """
    last_four: Annotated[str, Field(examples=['x9Qa'])]
    """
    Last 4 characters of the current secret.
    """
    status: Literal['active', 'revoked', 'expired']
    created_at: Annotated[AwareDatetime, Field(examples=['2026-01-15T09:30:00.000Z'])]
    """
    ISO 8601 UTC with milliseconds.
    """
    updated_at: Annotated[AwareDatetime, Field(examples=['2026-01-15T09:30:00.000Z'])]
    """
    ISO 8601 UTC with milliseconds.
    """
    created_by: Annotated[
        CreatedBy,
        Field(examples=[{'type': 'user', 'id': 'usr_01jd8x0a2b4c6d8e0f2g4h6j8k'}]),
    ]
    last_used_at: Annotated[
        AwareDatetime | None, Field(examples=['2026-01-15T09:30:00.000Z'])
    ]
    """
    Last successful authentication, to the minute.
    """
    expires_at: Annotated[
        AwareDatetime | None, Field(examples=['2026-01-15T09:30:00.000Z'])
    ]
    """
    ISO 8601 UTC with milliseconds.
    """
    rotated_at: Annotated[
        AwareDatetime | None, Field(examples=['2026-01-15T09:30:00.000Z'])
    ]
    """
    ISO 8601 UTC with milliseconds.
    """
    key: Annotated[
        str | None, Field(examples=['slw_7Gq2Vx0pLk3RtY8mNc4BwE6uHs1ZaJ9f0x9QaB'])
    ]
    """
    The secret: `slw_` + 32 base62 characters + a 6-character checksum. Shown in this response only; store it now. `null` only in an `Idempotency-Key` replay (the secret is never shown twice).
    """


class CreateApiKey(BaseModel):
    model_config = ConfigDict(
        extra='forbid',
    )
    name: Annotated[
        str,
        Field(
            examples=['GitHub Actions deploy'],
            pattern='^[\\t\\n\\v\\f\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff]*[^\\t\\n\\v\\f\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff\\u202a-\\u202e\\u2066-\\u2069](?:[^\\u202a-\\u202e\\u2066-\\u2069]{0,98}[^\\t\\n\\v\\f\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff\\u202a-\\u202e\\u2066-\\u2069])?[\\t\\n\\v\\f\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff]*$',
        ),
    ]
    """
    What the key is for, 1–100 characters after trimming.
    """
    scopes: Annotated[
        list[Literal['read', 'write', 'admin']],
        Field(examples=[['read', 'write']], max_length=3, min_length=1),
    ]
    """
    Scopes nest (`write` includes `read`, `admin` includes both).
    """
    expires_at: Annotated[
        AwareDatetime | None, Field(examples=['2027-01-01T00:00:00.000Z'])
    ] = None
    """
    When the key stops working (ISO 8601, in the future); `null` or absent: never.
    """


class RotateApiKey(BaseModel):
    model_config = ConfigDict(
        extra='forbid',
    )
    grace_period_seconds: Annotated[
        int | None, Field(examples=[3600], ge=0, le=604800)
    ] = 0
    """
    How long the previous secret keeps working, 0–604800 s (7 days). 0: it stops at once.
    """


class User(BaseModel):
    id: Annotated[
        str,
        Field(
            examples=['usr_01jd8x0a2b4c6d8e0f2g4h6j8k'],
            pattern='^usr_[0-9a-hjkmnp-tv-z]{26}$',
        ),
    ]
    """
    User id.
    """
    account_id: Annotated[str, Field(examples=['acct_01jd8x0a2b4c6d8e0f2g4h6j8m'])]
    email: Annotated[str, Field(examples=['ada@example.com'])]
    name: Annotated[str, Field(examples=['Ada Lovelace'])]
    role: Annotated[
        Literal['viewer', 'developer', 'admin', 'owner'], Field(examples=['developer'])
    ]
    """
    `viewer` (read), `developer` (write), `admin` and `owner` (admin). Only an owner may grant `owner` or change or remove an owner.
    """
    status: Annotated[Literal['invited', 'active'], Field(examples=['active'])]
    """
    `invited`: added, the invitation not yet accepted (no sign-in acts as this user); `active`: a member.
    """
    created_at: Annotated[AwareDatetime, Field(examples=['2026-01-15T09:30:00.000Z'])]
    """
    ISO 8601 UTC with milliseconds.
    """
    updated_at: Annotated[AwareDatetime, Field(examples=['2026-01-15T09:30:00.000Z'])]
    """
    ISO 8601 UTC with milliseconds.
    """
    last_login_at: Annotated[
        AwareDatetime | None, Field(examples=['2026-01-15T09:30:00.000Z'])
    ]
    """
    ISO 8601 UTC with milliseconds.
    """


class ChangePassword(BaseModel):
    model_config = ConfigDict(
        extra='forbid',
    )
    current_password: Annotated[
        str,
        Field(examples=['correct horse battery staple'], max_length=256, min_length=1),
    ]
    """
    The password in use now.
    """
    new_password: Annotated[
        str,
        Field(
            examples=['battery staple horse correct 2'], max_length=256, min_length=12
        ),
    ]
    """
    12–256 characters.
    """


class CreatedUser(BaseModel):
    id: Annotated[
        str,
        Field(
            examples=['usr_01jd8x0a2b4c6d8e0f2g4h6j8k'],
            pattern='^usr_[0-9a-hjkmnp-tv-z]{26}$',
        ),
    ]
    """
    User id.
    """
    account_id: Annotated[str, Field(examples=['acct_01jd8x0a2b4c6d8e0f2g4h6j8m'])]
    email: Annotated[str, Field(examples=['ada@example.com'])]
    name: Annotated[str, Field(examples=['Ada Lovelace'])]
    role: Annotated[
        Literal['viewer', 'developer', 'admin', 'owner'], Field(examples=['developer'])
    ]
    """
    `viewer` (read), `developer` (write), `admin` and `owner` (admin). Only an owner may grant `owner` or change or remove an owner.
    """
    status: Annotated[Literal['invited', 'active'], Field(examples=['active'])]
    """
    `invited`: added, the invitation not yet accepted (no sign-in acts as this user); `active`: a member.
    """
    created_at: Annotated[AwareDatetime, Field(examples=['2026-01-15T09:30:00.000Z'])]
    """
    ISO 8601 UTC with milliseconds.
    """
    updated_at: Annotated[AwareDatetime, Field(examples=['2026-01-15T09:30:00.000Z'])]
    """
    ISO 8601 UTC with milliseconds.
    """
    last_login_at: Annotated[
        AwareDatetime | None, Field(examples=['2026-01-15T09:30:00.000Z'])
    ]
    """
    ISO 8601 UTC with milliseconds.
    """
    invitation_url: Annotated[
        str | None,
        Field(
            examples=['https://slipway.example.com/dashboard/invitation?token=slwin_Jb3…']
        ),
    ]
    """
    The one-time invitation link (7 days), shown in this response only: the person opens it, signs in (or, new to Slipway, chooses a password) and accepts or declines. Slipway sends no e-mail. `null` in an `Idempotency-Key` replay.
    """
    invitation_expires_at: Annotated[
        AwareDatetime | None, Field(examples=['2026-01-15T09:30:00.000Z'])
    ]
    """
    When the invitation expires.
    """
    setup_url: Annotated[
        str | None,
        Field(
            examples=['https://slipway.example.com/dashboard/invitation?token=slwin_Jb3…']
        ),
    ]
    """
    Deprecated: the same link as `invitation_url` (a new person chooses their password there).
    """
    setup_expires_at: Annotated[
        AwareDatetime | None, Field(examples=['2026-01-15T09:30:00.000Z'])
    ]
    """
    Deprecated: the same as `invitation_expires_at`.
    """


class CreateUser(BaseModel):
    model_config = ConfigDict(
        extra='forbid',
    )
    email: Annotated[
        str,
        Field(
            examples=['ada@example.com'],
            max_length=254,
            pattern="^[\\t\\n\\v\\f\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff]*(?:[A-Za-z0-9_'+\\-]+\\.)*[A-Za-z0-9_'+\\-]*[A-Za-z0-9_+-]@(?:[A-Za-z0-9][A-Za-z0-9\\-]*\\.)+[A-Za-z]{2,}[\\t\\n\\v\\f\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff]*$",
        ),
    ]
    """
    Unique in the account; stored lower-case. At most 254 characters after trimming.
    """
    name: Annotated[
        str,
        Field(
            examples=['Ada Lovelace'],
            pattern='^[\\t\\n\\v\\f\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff]*[^\\t\\n\\v\\f\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff\\u202a-\\u202e\\u2066-\\u2069](?:[^\\u202a-\\u202e\\u2066-\\u2069]{0,98}[^\\t\\n\\v\\f\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff\\u202a-\\u202e\\u2066-\\u2069])?[\\t\\n\\v\\f\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff]*$',
        ),
    ]
    """
    1–100 characters after trimming.
    """
    role: Annotated[
        Literal['viewer', 'developer', 'admin', 'owner'], Field(examples=['developer'])
    ]
    """
    `viewer` (read), `developer` (write), `admin` and `owner` (admin). Only an owner may grant `owner` or change or remove an owner.
    """
    password: Annotated[
        str | None,
        Field(examples=['correct horse battery staple'], max_length=256, min_length=12),
    ] = None
    """
    A first password for a person new to Slipway: if the address has no sign-in when the invitation is accepted, this is its password (the person types it on the invitation page). Never applied to an address that already signs in.
    """


class UpdateUser(BaseModel):
    """
    The last owner cannot be demoted (`conflict`).
    """

    model_config = ConfigDict(
        extra='forbid',
    )
    name: Annotated[
        str | None,
        Field(
            examples=['Ada Lovelace'],
            pattern='^[\\t\\n\\v\\f\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff]*[^\\t\\n\\v\\f\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff\\u202a-\\u202e\\u2066-\\u2069](?:[^\\u202a-\\u202e\\u2066-\\u2069]{0,98}[^\\t\\n\\v\\f\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff\\u202a-\\u202e\\u2066-\\u2069])?[\\t\\n\\v\\f\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff]*$',
        ),
    ] = None
    """
    1–100 characters after trimming.
    """
    role: Annotated[
        Literal['viewer', 'developer', 'admin', 'owner'] | None,
        Field(examples=['developer']),
    ] = None
    """
    `viewer` (read), `developer` (write), `admin` and `owner` (admin). Only an owner may grant `owner` or change or remove an owner.
    """


class Membership(BaseModel):
    account_id: Annotated[str, Field(examples=['acct_01jd8x0a2b4c6d8e0f2g4h6j8m'])]
    """
    Account id.
    """
    name: Annotated[str, Field(examples=['Acme'])]
    """
    The account’s name.
    """
    role: Annotated[
        Literal['viewer', 'developer', 'admin', 'owner'], Field(examples=['developer'])
    ]
    """
    `viewer` (read), `developer` (write), `admin` and `owner` (admin). Only an owner may grant `owner` or change or remove an owner.
    """
    user_id: Annotated[
        str,
        Field(
            examples=['usr_01jd8x0a2b4c6d8e0f2g4h6j8k'],
            pattern='^usr_[0-9a-hjkmnp-tv-z]{26}$',
        ),
    ]
    """
    The person as a user of that account (`/v1/users/{user_id}` there).
    """
    current: bool
    """
    Whether this credential acts in this account (a credential always acts in exactly one).
    """


class OAuthClient(BaseModel):
    client_id: Annotated[
        str,
        Field(examples=['cli_4fQm9TzR2xWb7LkP0sNa'], pattern='^[A-Za-z0-9_-]{1,100}$'),
    ]
    """
    The OAuth `client_id`.
    """
    client_name: str
    redirect_uris: list[str]
    token_endpoint_auth_method: Annotated[
        Literal['none', 'client_secret_basic'], Field(examples=['none'])
    ]
    """
    `none`: a public client (SPA, mobile or desktop app; PKCE only). `client_secret_basic`: a confidential client, which gets a `client_secret`.
    """
    grant_types: list[Literal['authorization_code', 'refresh_token', 'client_credentials']]
    scope: Annotated[str, Field(examples=['read write'])]
    first_party: bool
    dpop_bound_access_tokens: bool
    """
    Token requests must carry a DPoP proof (RFC 9449 §5.2).
    """
    require_pushed_authorization_requests: bool
    """
    Authorization requests must be pushed first (RFC 9126 §6).
    """
    account_id: Annotated[str, Field(examples=['acct_01jd8x0a2b4c6d8e0f2g4h6j8m'])]
    created_at: Annotated[AwareDatetime, Field(examples=['2026-01-15T09:30:00.000Z'])]
    """
    ISO 8601 UTC with milliseconds.
    """
    updated_at: Annotated[AwareDatetime, Field(examples=['2026-01-15T09:30:00.000Z'])]
    """
    ISO 8601 UTC with milliseconds.
    """


class RegisteredOAuthClient(BaseModel):
    client_id: Annotated[
        str,
        Field(examples=['cli_4fQm9TzR2xWb7LkP0sNa'], pattern='^[A-Za-z0-9_-]{1,100}$'),
    ]
    """
    The OAuth `client_id`.
    """
    client_name: str
    redirect_uris: list[str]
    token_endpoint_auth_method: Annotated[
        Literal['none', 'client_secret_basic'], Field(examples=['none'])
    ]
    """
    `none`: a public client (SPA, mobile or desktop app; PKCE only). `client_secret_basic`: a confidential client, which gets a `client_secret`.
    """
    grant_types: list[Literal['authorization_code', 'refresh_token', 'client_credentials']]
    scope: Annotated[str, Field(examples=['read write'])]
    first_party: bool
    dpop_bound_access_tokens: bool
    """
    Token requests must carry a DPoP proof (RFC 9449 §5.2).
    """
    require_pushed_authorization_requests: bool
    """
    Authorization requests must be pushed first (RFC 9126 §6).
    """
    account_id: Annotated[str, Field(examples=['acct_01jd8x0a2b4c6d8e0f2g4h6j8m'])]
    created_at: Annotated[AwareDatetime, Field(examples=['2026-01-15T09:30:00.000Z'])]
    """
    ISO 8601 UTC with milliseconds.
    """
    updated_at: Annotated[AwareDatetime, Field(examples=['2026-01-15T09:30:00.000Z'])]
    """
    ISO 8601 UTC with milliseconds.
    """
    client_secret: Annotated[
        str | None, Field(examples=['slwcs_Vb1q3ZrT7yNw0cXe5LmA9sDf2GhJ4kP6oQ8uRtY1zI'])
    ]
    """
    Shown in this response only (Slipway keeps a hash). `null` for a public client, and in an `Idempotency-Key` replay.
    """


class RedirectUri(RootModel[str]):
    root: Annotated[
        str,
        Field(
            max_length=2048,
            pattern='^(?:[hH][tT][tT][pP][sS]:\\/\\/(?:(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])(?:\\.(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])){3}|(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\\.)*[A-Za-z](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)(?::(?:6553[0-5]|655[0-2][0-9]|65[0-4][0-9]{2}|6[0-4][0-9]{3}|[1-5][0-9]{4}|[1-9][0-9]{0,3}|0))?(?:[/?][\\x21-\\x22\\x24-\\x29\\x2b-\\x7e]*)?|[hH][tT][tT][pP]:\\/\\/(?:127\\.0\\.0\\.1|\\[::1\\]|[lL][oO][cC][aA][lL][hH][oO][sS][tT])(?::(?:6553[0-5]|655[0-2][0-9]|65[0-4][0-9]{2}|6[0-4][0-9]{3}|[1-5][0-9]{4}|[1-9][0-9]{0,3}|0))?(?:[/?][\\x21-\\x22\\x24-\\x29\\x2b-\\x7e]*)?|[A-Za-z][A-Za-z0-9+.-]*\\.[A-Za-z0-9+.-]+:(?:[\\x21-\\x22\\x24-\\x29\\x2b-\\x2e\\x30-\\x7e][\\x21-\\x22\\x24-\\x29\\x2b-\\x7e]*|\\/(?:[\\x21-\\x22\\x24-\\x29\\x2b-\\x2e\\x30-\\x7e][\\x21-\\x22\\x24-\\x29\\x2b-\\x7e]*)?)?)$',
        ),
    ]
    """
    Matched exactly. https; http only to a loopback host (any port, RFC 8252); or a private-use scheme such as `com.example.app:/callback`. No fragment, wildcard, user name or password; non-ASCII percent-encoded.
    """


class RegisterOAuthClient(BaseModel):
    model_config = ConfigDict(
        extra='forbid',
    )
    client_name: Annotated[
        str,
        Field(
            examples=['Release dashboard'],
            pattern='^[\\t\\n\\v\\f\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff]*[^\\t\\n\\v\\f\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff\\u202a-\\u202e\\u2066-\\u2069](?:[^\\u202a-\\u202e\\u2066-\\u2069]{0,98}[^\\t\\n\\v\\f\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff\\u202a-\\u202e\\u2066-\\u2069])?[\\t\\n\\v\\f\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff]*$',
        ),
    ]
    """
    1–100 characters after trimming. Shown on the consent page, so it may not contain "Slipway" (in any case, spacing, punctuation or look-alike letters) nor equal the name of one of our own apps.
    """
    redirect_uris: Annotated[
        list[RedirectUri] | None,
        Field(examples=[['https://release.example.com/oauth/callback']], max_length=20),
    ] = None
    """
    Required for `authorization_code`.
    """
    token_endpoint_auth_method: Annotated[
        Literal['none', 'client_secret_basic'] | None,
        Field(examples=['client_secret_basic']),
    ] = None
    """
    Default `none` (public).
    """
    grant_types: Annotated[
        list[Literal['authorization_code', 'refresh_token', 'client_credentials']] | None,
        Field(examples=[['authorization_code', 'refresh_token']], min_length=1),
    ] = None
    """
    Default `["authorization_code", "refresh_token"]`. `client_credentials` needs a confidential client.
    """
    scope: Annotated[
        str | None,
        Field(
            examples=['read write'],
            max_length=100,
            pattern='^[\\t\\n\\v\\f\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff]*(?:read|write|admin)(?:[\\t\\n\\v\\f\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff]+(?:read|write|admin))*[\\t\\n\\v\\f\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff]*$',
        ),
    ] = None
    """
    Space-separated scopes the client may ask for (`read`, `write`, `admin`); default `read write admin`.
    """
    dpop_bound_access_tokens: Annotated[bool | None, Field(examples=[False])] = None
    """
    RFC 9449 §5.2. Default false. When true, every token request must carry a DPoP proof, so every access token (and a public client's refresh token) is bound to the app's key and useful only with proofs of that key.
    """
    require_pushed_authorization_requests: Annotated[
        bool | None, Field(examples=[False])
    ] = None
    """
    RFC 9126 §6. Default false. When true, `/oauth/authorize` accepts only a `request_uri` from a pushed authorization request (`POST /oauth/request`), never the parameters in the URL.
    """
    first_party: Literal[False] | None = None
    """
    Always false here: first-party clients (no consent page) are registered by the operator with the CLI.
    """


class Actor1(BaseModel):
    """
    Who made the change: a user, an API key, an OAuth client, a CI token exchanged through a trust policy (`federated`), or the admin CLI (`system`).
    """

    type: Literal['user', 'api_key', 'client', 'system', 'federated']
    id: str


class Event(BaseModel):
    id: Annotated[str, Field(examples=['evt_01jd8z9r3t5v7x9z1b3d5f7h9k'])]
    """
    Event id, time-sortable.
    """
    type: Annotated[str, Field(examples=['deployment.status_changed'])]
    """
    One of the types listed for the `type` filter; new types may be added.
    """
    actor: Annotated[
        Actor1,
        Field(examples=[{'type': 'api_key', 'id': 'key_01jd8z4c8p6r0t2v4x6z8b0d2f'}]),
    ]
    """
    Who made the change: a user, an API key, an OAuth client, a CI token exchanged through a trust policy (`federated`), or the admin CLI (`system`).
    """
    project_id: Annotated[
        str | None,
        Field(
            examples=['proj_01jd8x3k9q7m2v4t6r8w0y1z3b'],
            pattern='^proj_[0-9a-hjkmnp-tv-z]{26}$',
        ),
    ]
    """
    Project id.
    """
    data: Annotated[
        dict[str, Any],
        Field(
            examples=[{'deployment_id': 'dep_01jd8x7p2c4e6g8j0k2m4n6q8s', 'environment': 'production', 'from': 'deploying', 'to': 'succeeded'}]
        ),
    ]
    """
    What changed: ids, names, old and new states. Never a secret value.
    """
    created_at: Annotated[AwareDatetime, Field(examples=['2026-01-15T09:30:00.000Z'])]
    """
    ISO 8601 UTC with milliseconds.
    """


class Webhook(BaseModel):
    id: Annotated[
        str,
        Field(
            examples=['whk_01jd8x3k9q7m2v4t6r8w0y1z3b'],
            pattern='^whk_[0-9a-hjkmnp-tv-z]{26}$',
        ),
    ]
    """
    Webhook id.
    """
    url: str
    events: list[Literal['*', 'project.created', 'project.updated', 'project.deleted', 'deployment.created', 'deployment.status_changed', 'deployment.waiting', 'deployment.reviewed', 'deployment.approved', 'deployment.rejected', 'environment.created', 'environment.updated', 'environment.deleted', 'environment.locked', 'environment.unlocked', 'configuration.released', 'configuration.created', 'configuration.updated', 'configuration.deleted', 'api_key.created', 'api_key.rotated', 'api_key.revoked', 'user.created', 'user.updated', 'user.deleted', 'user.password_changed', 'user.password_set', 'user.invitation_accepted', 'user.invitation_declined', 'oauth_client.created', 'oauth_client.secret_rotated', 'oauth_client.deleted', 'webhook.created', 'webhook.updated', 'webhook.deleted', 'webhook.secret_rotated', 'webhook.disabled', 'trust_policy.created', 'trust_policy.deleted', 'token.exchanged']]
    description: str | None
    status: Literal['enabled', 'disabled']
    """
    `enabled` endpoints receive deliveries; an endpoint failing for 24 h is `disabled` by Slipway (a `webhook.disabled` event records it).
    """
    created_at: Annotated[AwareDatetime, Field(examples=['2026-01-15T09:30:00.000Z'])]
    """
    ISO 8601 UTC with milliseconds.
    """
    updated_at: Annotated[AwareDatetime, Field(examples=['2026-01-15T09:30:00.000Z'])]
    """
    ISO 8601 UTC with milliseconds.
    """


class WebhookWithSecret(BaseModel):
    id: Annotated[
        str,
        Field(
            examples=['whk_01jd8x3k9q7m2v4t6r8w0y1z3b'],
            pattern='^whk_[0-9a-hjkmnp-tv-z]{26}$',
        ),
    ]
    """
    Webhook id.
    """
    url: str
    events: list[Literal['*', 'project.created', 'project.updated', 'project.deleted', 'deployment.created', 'deployment.status_changed', 'deployment.waiting', 'deployment.reviewed', 'deployment.approved', 'deployment.rejected', 'environment.created', 'environment.updated', 'environment.deleted', 'environment.locked', 'environment.unlocked', 'configuration.released', 'configuration.created', 'configuration.updated', 'configuration.deleted', 'api_key.created', 'api_key.rotated', 'api_key.revoked', 'user.created', 'user.updated', 'user.deleted', 'user.password_changed', 'user.password_set', 'user.invitation_accepted', 'user.invitation_declined', 'oauth_client.created', 'oauth_client.secret_rotated', 'oauth_client.deleted', 'webhook.created', 'webhook.updated', 'webhook.deleted', 'webhook.secret_rotated', 'webhook.disabled', 'trust_policy.created', 'trust_policy.deleted', 'token.exchanged']]
    description: str | None
    status: Literal['enabled', 'disabled']
    """
    `enabled` endpoints receive deliveries; an endpoint failing for 24 h is `disabled` by Slipway (a `webhook.disabled` event records it).
    """
    created_at: Annotated[AwareDatetime, Field(examples=['2026-01-15T09:30:00.000Z'])]
    """
    ISO 8601 UTC with milliseconds.
    """
    updated_at: Annotated[AwareDatetime, Field(examples=['2026-01-15T09:30:00.000Z'])]
    """
    ISO 8601 UTC with milliseconds.
    """
    secret: Annotated[
        str | None,
        Field(examples=['whsec_Vb1q3ZrT7yNw0cXe5LmA9sDf2GhJ4kP6oQ8uRtY1zIw']),
    ]
    """
    The signing secret (`whsec_…`), shown in this response only (Slipway keeps it encrypted). `null` in an `Idempotency-Key` replay. Deliveries carry `Slipway-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "t.body" keyed with this whole string>`.
    """


class CreateWebhook(BaseModel):
    model_config = ConfigDict(
        extra='forbid',
    )
    url: Annotated[
        str,
        Field(
            examples=['https://ci.example.com/hooks/slipway'],
            max_length=2048,
            pattern='^[hH][tT][tT][pP][sS]?:\\/\\/(?:(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])(?:\\.(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])){3}|(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\\.)*[A-Za-z](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)(?::(?:6553[0-5]|655[0-2][0-9]|65[0-4][0-9]{2}|6[0-4][0-9]{3}|[1-5][0-9]{4}|[1-9][0-9]{0,3}|0))?(?:[/?#][\\x21-\\x7e]*)?$',
        ),
    ]
    """
    Where deliveries are POSTed. `https` only (plain `http` only to loopback, when the deployment allows it for development). The host must resolve to public addresses only: private, loopback, link-local, CGNAT, multicast and metadata addresses are refused (422), at registration and before every delivery.
    """
    events: Annotated[
        list[Literal['*', 'project.created', 'project.updated', 'project.deleted', 'deployment.created', 'deployment.status_changed', 'deployment.waiting', 'deployment.reviewed', 'deployment.approved', 'deployment.rejected', 'environment.created', 'environment.updated', 'environment.deleted', 'environment.locked', 'environment.unlocked', 'configuration.released', 'configuration.created', 'configuration.updated', 'configuration.deleted', 'api_key.created', 'api_key.rotated', 'api_key.revoked', 'user.created', 'user.updated', 'user.deleted', 'user.password_changed', 'user.password_set', 'user.invitation_accepted', 'user.invitation_declined', 'oauth_client.created', 'oauth_client.secret_rotated', 'oauth_client.deleted', 'webhook.created', 'webhook.updated', 'webhook.deleted', 'webhook.secret_rotated', 'webhook.disabled', 'trust_policy.created', 'trust_policy.deleted', 'token.exchanged']],
        Field(examples=[['deployment.status_changed']], max_length=40, min_length=1),
    ]
    """
    The event types delivered.
    """
    description: Annotated[
        str | None,
        Field(
            examples=['Release notifications'],
            pattern='^[\\t\\n\\v\\f\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff]*(?:[^\\t\\n\\v\\f\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff\\u0000-\\u001f\\u007f-\\u009f\\u202a-\\u202e\\u2066-\\u2069](?:[^\\u0000-\\u001f\\u007f-\\u009f\\u202a-\\u202e\\u2066-\\u2069]{0,498}[^\\t\\n\\v\\f\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff\\u0000-\\u001f\\u007f-\\u009f\\u202a-\\u202e\\u2066-\\u2069])?)?[\\t\\n\\v\\f\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff]*$',
        ),
    ] = None
    """
    Free text: trimmed, then at most 500 characters, with no control characters (line breaks and tabs included).
    """
    status: Literal['enabled', 'disabled'] | None = None
    """
    `enabled` endpoints receive deliveries; an endpoint failing for 24 h is `disabled` by Slipway (a `webhook.disabled` event records it).
    """


class UpdateWebhook(BaseModel):
    model_config = ConfigDict(
        extra='forbid',
    )
    url: Annotated[
        str | None,
        Field(
            examples=['https://ci.example.com/hooks/slipway'],
            max_length=2048,
            pattern='^[hH][tT][tT][pP][sS]?:\\/\\/(?:(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])(?:\\.(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])){3}|(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\\.)*[A-Za-z](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)(?::(?:6553[0-5]|655[0-2][0-9]|65[0-4][0-9]{2}|6[0-4][0-9]{3}|[1-5][0-9]{4}|[1-9][0-9]{0,3}|0))?(?:[/?#][\\x21-\\x7e]*)?$',
        ),
    ] = None
    """
    Where deliveries are POSTed. `https` only (plain `http` only to loopback, when the deployment allows it for development). The host must resolve to public addresses only: private, loopback, link-local, CGNAT, multicast and metadata addresses are refused (422), at registration and before every delivery.
    """
    events: Annotated[
        list[Literal['*', 'project.created', 'project.updated', 'project.deleted', 'deployment.created', 'deployment.status_changed', 'deployment.waiting', 'deployment.reviewed', 'deployment.approved', 'deployment.rejected', 'environment.created', 'environment.updated', 'environment.deleted', 'environment.locked', 'environment.unlocked', 'configuration.released', 'configuration.created', 'configuration.updated', 'configuration.deleted', 'api_key.created', 'api_key.rotated', 'api_key.revoked', 'user.created', 'user.updated', 'user.deleted', 'user.password_changed', 'user.password_set', 'user.invitation_accepted', 'user.invitation_declined', 'oauth_client.created', 'oauth_client.secret_rotated', 'oauth_client.deleted', 'webhook.created', 'webhook.updated', 'webhook.deleted', 'webhook.secret_rotated', 'webhook.disabled', 'trust_policy.created', 'trust_policy.deleted', 'token.exchanged']] | None,
        Field(examples=[['deployment.status_changed']], max_length=40, min_length=1),
    ] = None
    """
    The event types delivered.
    """
    description: Annotated[
        str | None,
        Field(
            examples=['Release notifications'],
            pattern='^[\\t\\n\\v\\f\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff]*(?:[^\\t\\n\\v\\f\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff\\u0000-\\u001f\\u007f-\\u009f\\u202a-\\u202e\\u2066-\\u2069](?:[^\\u0000-\\u001f\\u007f-\\u009f\\u202a-\\u202e\\u2066-\\u2069]{0,498}[^\\t\\n\\v\\f\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff\\u0000-\\u001f\\u007f-\\u009f\\u202a-\\u202e\\u2066-\\u2069])?)?[\\t\\n\\v\\f\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff]*$',
        ),
    ] = None
    """
    Free text: trimmed, then at most 500 characters, with no control characters (line breaks and tabs included).
    """
    status: Literal['enabled', 'disabled'] | None = None
    """
    `enabled` endpoints receive deliveries; an endpoint failing for 24 h is `disabled` by Slipway (a `webhook.disabled` event records it).
    """


class WebhookDeliveryAttempt(BaseModel):
    attempt: Annotated[int, Field(ge=1)]
    at: Annotated[AwareDatetime, Field(examples=['2026-01-15T09:30:00.000Z'])]
    """
    ISO 8601 UTC with milliseconds.
    """
    status_code: int | None
    """
    The receiver's HTTP status; null when it did not answer (timeout, connection or address refused).
    """
    duration_ms: Annotated[int, Field(ge=0)]
    error: Annotated[str | None, Field(examples=['timed out after 10000 ms'])]


class TrustPolicy(BaseModel):
    """
    Which CI tokens may be exchanged for a token acting as the project (docs: "CI without stored secrets").
    """

    id: Annotated[
        str,
        Field(
            examples=['tp_01jd8x3k9q7m2v4t6r8w0y1z3b'],
            pattern='^tp_[0-9a-hjkmnp-tv-z]{26}$',
        ),
    ]
    """
    Trust policy id.
    """
    project_id: Annotated[
        str,
        Field(
            examples=['proj_01jd8x3k9q7m2v4t6r8w0y1z3b'],
            pattern='^proj_[0-9a-hjkmnp-tv-z]{26}$',
        ),
    ]
    """
    Project id.
    """
    name: str
    issuer: str
    audience: str
    claims: dict[str, str]
    scopes: list[Literal['read', 'write']]
    environments: list[str] | None
    max_ttl_seconds: int
    created_at: Annotated[AwareDatetime, Field(examples=['2026-01-15T09:30:00.000Z'])]
    """
    ISO 8601 UTC with milliseconds.
    """
    created_by: CreatedBy


ClaimsAdditionalProperty = TypeAliasType(
    "ClaimsAdditionalProperty", Annotated[str, Field(max_length=256, min_length=1)]
)


class Environment1(RootModel[str]):
    root: Annotated[
        str, Field(examples=['production'], pattern='^[a-z0-9][a-z0-9-]{0,62}$')
    ]
    """
    Target environment.
    """


class CreateTrustPolicy(BaseModel):
    model_config = ConfigDict(
        extra='forbid',
    )
    name: Annotated[
        str,
        Field(
            examples=['GitHub Actions: deploy from main'],
            pattern='^[\\t\\n\\v\\f\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff]*[^\\t\\n\\v\\f\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff\\u202a-\\u202e\\u2066-\\u2069](?:[^\\u202a-\\u202e\\u2066-\\u2069]{0,98}[^\\t\\n\\v\\f\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff\\u202a-\\u202e\\u2066-\\u2069])?[\\t\\n\\v\\f\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff]*$',
        ),
    ]
    """
    What the policy is for, 1–100 characters after trimming.
    """
    issuer: Annotated[
        str,
        Field(
            examples=['https://token.actions.githubusercontent.com'],
            max_length=512,
            pattern='^[hH][tT][tT][pP][sS]?:\\/\\/(?:(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])(?:\\.(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])){3}|(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\\.)*[A-Za-z](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)(?::(?:6553[0-5]|655[0-2][0-9]|65[0-4][0-9]{2}|6[0-4][0-9]{3}|[1-5][0-9]{4}|[1-9][0-9]{0,3}|0))?(?:[/?#][\\x21-\\x7e]*)?$',
        ),
    ]
    """
    The CI provider's OpenID Connect issuer, exactly as its tokens' `iss` says it (`https` only; plain `http` only on loopback, when the deployment allows it for development). Its keys are read from `{issuer}/.well-known/openid-configuration`.
    """
    audience: Annotated[
        str | None,
        Field(examples=['https://slipway.example.com'], max_length=512, min_length=1),
    ] = None
    """
    What the token's `aud` must hold. Default: this server's base URL.
    """
    claims: Annotated[
        dict[str, ClaimsAdditionalProperty],
        Field(
            examples=[{'repository_id': '123456789', 'repository_owner_id': '987654', 'ref': 'refs/heads/main'}]
        ),
    ]
    """
    Claim name → the exact string value the token must carry. Matched by equality only: `*` or any other character is just that character. At least one claim besides `iss` and `aud`.
    """
    scopes: Annotated[
        list[Literal['read', 'write']],
        Field(examples=[['read', 'write']], max_length=2, min_length=1),
    ]
    """
    The exchanged token's scopes (`write` includes `read`).
    """
    environments: Annotated[
        list[Environment1] | None,
        Field(examples=[['staging', 'production']], max_length=50, min_length=1),
    ] = None
    """
    The environments the exchanged token may deploy to; `null` or absent: all.
    """
    max_ttl_seconds: Annotated[int | None, Field(examples=[900], ge=60, le=3600)] = 900
    """
    How long an exchanged token lives, 60–3600 s (default 900).
    """


class ProjectList(BaseModel):
    data: list[Project]
    pagination: Pagination


class DeploymentList(BaseModel):
    data: list[Deployment]
    pagination: Pagination


class LogPage(BaseModel):
    data: list[LogLine]
    next_after: Annotated[int, Field(ge=0)]
    """
    Pass as `after` for the next page: the last seq of this one (or the `after` given, when the page is empty).
    """
    complete: bool
    """
    The deployment has finished and this page reaches the last line stored. A line appended later (within 10 minutes of the finish) makes a later read longer.
    """


class EnvironmentList(BaseModel):
    data: list[Environment]
    pagination: Pagination


class CreateEnvironment(BaseModel):
    model_config = ConfigDict(
        extra='forbid',
    )
    name: Annotated[
        str, Field(examples=['staging'], pattern='^[a-z0-9][a-z0-9-]{0,62}$')
    ]
    """
    Target environment.
    """
    url: Annotated[
        str | None,
        Field(
            examples=['https://checkout.example.com'],
            max_length=2048,
            pattern='^[hH][tT][tT][pP][sS]?:\\/\\/(?:(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])(?:\\.(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])){3}|(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\\.)*[A-Za-z](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)(?::(?:6553[0-5]|655[0-2][0-9]|65[0-4][0-9]{2}|6[0-4][0-9]{3}|[1-5][0-9]{4}|[1-9][0-9]{0,3}|0))?(?:[/?#][\\x21-\\x7e]*)?$',
        ),
    ] = None
    """
    Where the environment is reached, an absolute http(s) URL.
    """
    protection: ProtectionInput | None = None
    serial: Annotated[bool | None, Field(examples=[True])] = None
    """
    At most one deployment in `building` or `deploying` at a time.
    """
    cancel_superseded: Annotated[bool | None, Field(examples=[False])] = None
    """
    A new deployment cancels the older `waiting` and `queued` ones.
    """
    freeze_windows: Annotated[list[FreezeWindow1] | None, Field(max_length=50)] = None
    """
    Times no deployment may be created (except an admin override).
    """


class ConfigurationList(BaseModel):
    data: list[Configuration]
    pagination: Pagination


class ApiKeyList(BaseModel):
    data: list[ApiKey]
    pagination: Pagination


class UserList(BaseModel):
    data: list[User]
    pagination: Pagination


class MembershipList(BaseModel):
    data: list[Membership]
    pagination: Pagination


class OAuthClientList(BaseModel):
    data: list[OAuthClient]
    pagination: Pagination


class EventList(BaseModel):
    data: list[Event]
    pagination: Pagination


class WebhookList(BaseModel):
    data: list[Webhook]
    pagination: Pagination


class WebhookDelivery(BaseModel):
    id: Annotated[
        str,
        Field(
            examples=['dlv_01jd8x4m2c7p9r1t3v5x7z9b1d'],
            pattern='^dlv_[0-9a-hjkmnp-tv-z]{26}$',
        ),
    ]
    """
    Delivery id: the `Slipway-Delivery` header, the same on every retry and redelivery.
    """
    webhook_id: Annotated[
        str,
        Field(
            examples=['whk_01jd8x3k9q7m2v4t6r8w0y1z3b'],
            pattern='^whk_[0-9a-hjkmnp-tv-z]{26}$',
        ),
    ]
    """
    Webhook id.
    """
    event_id: Annotated[str, Field(examples=['evt_01jd8x4m2c7p9r1t3v5x7z9b1d'])]
    event_type: Annotated[str, Field(examples=['deployment.status_changed'])]
    status: Literal['pending', 'succeeded', 'failed']
    """
    `pending` while attempts remain, `succeeded` on a 2xx, `failed` when retries ran out.
    """
    attempt_count: Annotated[int, Field(ge=0)]
    attempts: list[WebhookDeliveryAttempt]
    next_attempt_at: Annotated[
        AwareDatetime | None, Field(examples=['2026-01-15T09:30:00.000Z'])
    ]
    """
    ISO 8601 UTC with milliseconds.
    """
    created_at: Annotated[AwareDatetime, Field(examples=['2026-01-15T09:30:00.000Z'])]
    """
    ISO 8601 UTC with milliseconds.
    """
    updated_at: Annotated[AwareDatetime, Field(examples=['2026-01-15T09:30:00.000Z'])]
    """
    ISO 8601 UTC with milliseconds.
    """


class WebhookDeliveryList(BaseModel):
    data: list[WebhookDelivery]
    pagination: Pagination


class TrustPolicyList(BaseModel):
    data: list[TrustPolicy]
    pagination: Pagination
