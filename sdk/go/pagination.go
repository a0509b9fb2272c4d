package slipway

import (
	"context"
	"iter"
	"net/http"
	"net/url"
	"strconv"
)

// page is the shape of every list response: {data, pagination}.
type page[T any] struct {
	Data       []T        `json:"data"`
	Pagination Pagination `json:"pagination"`
}

// all yields every item of a list, fetching the next page only when the caller gets there; it
// stops at the first error (yielded with the zero T) or when the caller stops.
func all[T any](ctx context.Context, c *Client, path string, query url.Values, opts []RequestOption) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		n := 1
		if p, err := strconv.Atoi(query.Get("page")); err == nil && p > 0 {
			n = p
		}
		for {
			var list page[T]
			if err := c.call(ctx, http.MethodGet, path, withPage(query, n), nil, &list, false, opts); err != nil {
				var zero T
				yield(zero, err)
				return
			}
			for _, item := range list.Data {
				if !yield(item, nil) {
					return
				}
			}
			p := list.Pagination
			if len(list.Data) == 0 || p.Page*p.PerPage >= p.Total {
				return
			}
			n = p.Page + 1
		}
	}
}
