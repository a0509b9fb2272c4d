package slipway

import "github.com/oapi-codegen/nullable"

// Nullable is a nullable field of the API's objects (deploy_target, status_message, url,
// description, ...): unspecified (left out of a request), null, or a value. Its zero value is
// unspecified, so an update sends only the fields you set:
//
//	client.Projects.Update(ctx, id, slipway.UpdateProject{DeployTarget: slipway.Null[slipway.UpdateProjectDeployTarget]()}) // "deploy_target": null
//	client.Projects.Update(ctx, id, slipway.UpdateProject{DeployTarget: slipway.NotNull(slipway.UpdateProjectDeployTargetFly)})
//
// Read one with IsNull, Get (an error when null or unspecified) or MustGet. It is
// github.com/oapi-codegen/nullable's type (a map, so `omitempty` leaves an unspecified one out).
type Nullable[T any] = nullable.Nullable[T]

// Null is an explicit null: the field is sent as `null`.
func Null[T any]() Nullable[T] { return nullable.NewNullNullable[T]() }

// NotNull is a field set to v.
func NotNull[T any](v T) Nullable[T] { return nullable.NewNullableWithValue(v) }
