package iamstub

// IAM's actions on roles and their inline policies, each checking its input as IAM does.

import (
	"encoding/base64"
	"encoding/json"
	"maps"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// names are IAM's role and policy names: 1 to 64 (roles) or 128 (policies) of these characters.
var names = regexp.MustCompile(`^[\w+=,.@-]+$`)

func checkName(field, v string, max int) *apiError {
	if v == "" {
		return validation("1 validation error detected: Value null at '%s' failed to satisfy constraint: Member must not be null", field)
	}
	if len(v) > max {
		return validation("1 validation error detected: Value '%s' at '%s' failed to satisfy constraint: Member must have length less than or equal to %d", v, field, max)
	}
	if !names.MatchString(v) {
		return validation("1 validation error detected: Value '%s' at '%s' failed to satisfy constraint: Member must satisfy regular expression pattern: [\\w+=,.@-]+", v, field)
	}
	return nil
}

// checkDocument wants a policy document to be a JSON object, as IAM parses it.
func checkDocument(field, doc string) *apiError {
	if doc == "" {
		return validation("1 validation error detected: Value null at '%s' failed to satisfy constraint: Member must not be null", field)
	}
	var v map[string]any
	if json.Unmarshal([]byte(doc), &v) != nil {
		return sender(http.StatusBadRequest, "MalformedPolicyDocument", "This policy contains invalid Json (%s)", field)
	}
	return nil
}

func (s *Server) role(form url.Values) (*role, *apiError) {
	name := form.Get("RoleName")
	if e := checkName("roleName", name, 64); e != nil {
		return nil, e
	}
	r, ok := s.roles[name]
	if !ok {
		return nil, noSuchEntity("The role with name %s cannot be found.", name)
	}
	return r, nil
}

func (s *Server) createRole(form url.Values) (any, *apiError) {
	name := form.Get("RoleName")
	if e := checkName("roleName", name, 64); e != nil {
		return nil, e
	}
	trust := form.Get("AssumeRolePolicyDocument")
	if e := checkDocument("assumeRolePolicyDocument", trust); e != nil {
		return nil, e
	}
	path := form.Get("Path")
	if path == "" {
		path = "/"
	}
	if !strings.HasPrefix(path, "/") || !strings.HasSuffix(path, "/") {
		return nil, validation("The specified value for path is invalid. It must begin and end with / and contain only alphanumeric characters and/or / characters.")
	}
	maxSession := 3600
	if v := form.Get("MaxSessionDuration"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 3600 || n > 43200 {
			return nil, validation("1 validation error detected: Value '%s' at 'maxSessionDuration' failed to satisfy constraint: Member must be between 3600 and 43200", v)
		}
		maxSession = n
	}
	tags, e := readTags(form)
	if e != nil {
		return nil, e
	}
	if _, ok := s.roles[name]; ok {
		return nil, sender(http.StatusConflict, "EntityAlreadyExists", "Role with name %s already exists.", name)
	}
	r := &role{
		name: name, path: path, description: form.Get("Description"), trust: trust, maxSession: maxSession,
		id:      "AROASTANDIN" + newID(upperAlnum, 10),
		arn:     "arn:aws:iam::" + s.o.AccountID + ":role" + path + name,
		created: time.Now().UTC(), tags: tags, policies: map[string]string{}, put: map[string]time.Time{},
	}
	s.roles[name] = r
	return struct{ Role xmlRole }{r.xml(true)}, nil
}

// readTags reads Tags.member.N.Key and .Value, N from 1, as the SDK's query serializer writes
// them.
func readTags(form url.Values) ([]tag, *apiError) {
	var tags []tag
	for i := 1; ; i++ {
		prefix := "Tags.member." + strconv.Itoa(i) + "."
		if !form.Has(prefix+"Key") && !form.Has(prefix+"Value") {
			break
		}
		k := form.Get(prefix + "Key")
		if k == "" || len(k) > 128 {
			return nil, validation("1 validation error detected: Value '%s' at 'tags.%d.member.key' failed to satisfy constraint: Member must have length between 1 and 128", k, i)
		}
		if slices.ContainsFunc(tags, func(t tag) bool { return t.Key == k }) {
			return nil, sender(http.StatusBadRequest, "InvalidInput", "Duplicate tag keys found. Please note that Tag keys are case insensitive: %s", k)
		}
		tags = append(tags, tag{Key: k, Value: form.Get(prefix + "Value")})
	}
	if len(tags) > 50 {
		return nil, sender(http.StatusConflict, "LimitExceeded", "Cannot exceed quota for TagsPerRole: 50")
	}
	return tags, nil
}

func (s *Server) getRole(form url.Values) (any, *apiError) {
	r, e := s.role(form)
	if e != nil {
		return nil, e
	}
	return struct{ Role xmlRole }{r.xml(true)}, nil
}

func (s *Server) putRolePolicy(form url.Values) (any, *apiError) {
	r, e := s.role(form)
	if e != nil {
		return nil, e
	}
	name := form.Get("PolicyName")
	if e := checkName("policyName", name, 128); e != nil {
		return nil, e
	}
	doc := form.Get("PolicyDocument")
	if e := checkDocument("policyDocument", doc); e != nil {
		return nil, e
	}
	r.policies[name] = doc
	r.put[name] = time.Now() // a changed document propagates afresh
	return struct{}{}, nil
}

func (s *Server) policy(form url.Values) (*role, string, *apiError) {
	r, e := s.role(form)
	if e != nil {
		return nil, "", e
	}
	name := form.Get("PolicyName")
	if e := checkName("policyName", name, 128); e != nil {
		return nil, "", e
	}
	if _, ok := r.policies[name]; !ok {
		return nil, "", noSuchEntity("The role policy with name %s cannot be found.", name)
	}
	return r, name, nil
}

func (s *Server) getRolePolicy(form url.Values) (any, *apiError) {
	r, name, e := s.policy(form)
	if e != nil {
		return nil, e
	}
	return struct{ RoleName, PolicyName, PolicyDocument string }{r.name, name, encodeDocument(r.policies[name])}, nil
}

func (s *Server) deleteRolePolicy(form url.Values) (any, *apiError) {
	r, name, e := s.policy(form)
	if e != nil {
		return nil, e
	}
	delete(r.policies, name)
	delete(r.put, name)
	return struct{}{}, nil
}

func (s *Server) listRolePolicies(form url.Values) (any, *apiError) {
	r, e := s.role(form)
	if e != nil {
		return nil, e
	}
	page, marker, truncated, e := paginate(form, slices.Sorted(maps.Keys(r.policies)))
	if e != nil {
		return nil, e
	}
	return struct {
		PolicyNames members[string]
		IsTruncated bool
		Marker      string `xml:",omitempty"`
	}{members[string]{page}, truncated, marker}, nil
}

func (s *Server) deleteRole(form url.Values) (any, *apiError) {
	r, e := s.role(form)
	if e != nil {
		return nil, e
	}
	if len(r.policies) > 0 {
		return nil, sender(http.StatusConflict, "DeleteConflict", "Cannot delete entity, must delete policies first.")
	}
	delete(s.roles, r.name)
	return struct{}{}, nil
}

func (s *Server) listRoles(form url.Values) (any, *apiError) {
	prefix := form.Get("PathPrefix")
	if prefix == "" {
		prefix = "/"
	}
	var matching []string
	for _, name := range slices.Sorted(maps.Keys(s.roles)) {
		if strings.HasPrefix(s.roles[name].path, prefix) {
			matching = append(matching, name)
		}
	}
	page, marker, truncated, e := paginate(form, matching)
	if e != nil {
		return nil, e
	}
	roles := make([]xmlRole, 0, len(page))
	for _, name := range page {
		// ListRoles leaves out tags, as IAM's does; GetRole and ListRoleTags give them.
		roles = append(roles, s.roles[name].xml(false))
	}
	return struct {
		Roles       members[xmlRole]
		IsTruncated bool
		Marker      string `xml:",omitempty"`
	}{members[xmlRole]{roles}, truncated, marker}, nil
}

func (s *Server) listRoleTags(form url.Values) (any, *apiError) {
	r, e := s.role(form)
	if e != nil {
		return nil, e
	}
	page, marker, truncated, e := paginate(form, r.tags)
	if e != nil {
		return nil, e
	}
	return struct {
		Tags        members[tag]
		IsTruncated bool
		Marker      string `xml:",omitempty"`
	}{members[tag]{page}, truncated, marker}, nil
}

// paginate cuts all at Marker (an opaque position the previous page gave) to MaxItems (default
// 100, 1 to 1000, as IAM's), and gives the next page's marker when more remain.
func paginate[T any](form url.Values, all []T) (page []T, next string, truncated bool, _ *apiError) {
	max := 100
	if v := form.Get("MaxItems"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 1000 {
			return nil, "", false, validation("1 validation error detected: Value '%s' at 'maxItems' failed to satisfy constraint: Member must have value between 1 and 1000", v)
		}
		max = n
	}
	start := 0
	if m := form.Get("Marker"); m != "" {
		b, err := base64.RawURLEncoding.DecodeString(m)
		n, convErr := strconv.Atoi(strings.TrimPrefix(string(b), "at:"))
		if err != nil || convErr != nil || !strings.HasPrefix(string(b), "at:") || n < 0 || n > len(all) {
			return nil, "", false, sender(http.StatusBadRequest, "InvalidInput", "Invalid Marker: %s", m)
		}
		start = n
	}
	end := min(start+max, len(all))
	if end < len(all) {
		next = base64.RawURLEncoding.EncodeToString([]byte("at:" + strconv.Itoa(end)))
	}
	return all[start:end], next, next != "", nil
}
