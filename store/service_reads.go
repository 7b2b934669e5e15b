package store

// lookupPage is the page of what an exact filter found, read with err: the
// one record, when there is one and its status is the filter's (any when
// status is ""). A record not found is an empty page.
func lookupPage[T any](found *T, err error, status string, statusOf func(*T) string, p PageRequest) (*Page[*T], error) {
	if ErrorCode(err) == ECodeNotFound {
		found, err = nil, nil
	}
	if err != nil {
		return nil, err
	}
	var items []*T
	if found != nil && (status == "" || statusOf(found) == status) {
		items = []*T{found}
	}
	return PageOf(items, p)
}

// orEmptyList returns list, or an empty list for nil: a list answers [],
// never null.
func orEmptyList[T any](list []*T) []*T {
	if list == nil {
		return []*T{}
	}
	return list
}
