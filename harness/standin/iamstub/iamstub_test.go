package iamstub

import (
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	"github.com/aws/aws-sdk-go-v2/service/iam/types"
	"github.com/aws/smithy-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/serverless-claims/claims/harness/standin/sigv4check"
)

// The stand-ins' static test keys.
const (
	keyID  = "AKIDCLAIMSSTANDIN"
	secret = "claims-standin-secret"
)

const lambdaTrust = `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"Service":"lambda.amazonaws.com"},"Action":"sts:AssumeRole"}]}`

func start(t *testing.T, delay time.Duration) *Server {
	t.Helper()
	return Start(t, Options{Keys: sigv4check.Keys{keyID: secret}, PropagationDelay: delay})
}

// client is the SDK's IAM client pointed at s, signing with the given secret.
func client(t *testing.T, s *Server, secretKey string) *iam.Client {
	t.Helper()
	return iam.New(iam.Options{
		Region:       "us-east-1",
		BaseEndpoint: aws.String(s.URL()),
		Credentials:  credentials.NewStaticCredentialsProvider(keyID, secretKey, ""),
	})
}

func createRole(t *testing.T, c *iam.Client, name, trust string, tags ...types.Tag) *types.Role {
	t.Helper()
	out, err := c.CreateRole(t.Context(), &iam.CreateRoleInput{
		RoleName: aws.String(name), AssumeRolePolicyDocument: aws.String(trust), Tags: tags,
	})
	require.NoError(t, err)
	return out.Role
}

// decoded reads a policy document as IAM answers it, URL-encoded.
func decoded(t *testing.T, doc *string) string {
	t.Helper()
	require.NotNil(t, doc)
	s, err := url.QueryUnescape(*doc)
	require.NoError(t, err)
	return s
}

// TestRoleLifecycle is the live mode's use of IAM: a tagged role with Lambda's trust policy, an
// inline policy, and the deletion in IAM's order (the policy first).
func TestRoleLifecycle(t *testing.T) {
	s := start(t, 0)
	c := client(t, s, secret)
	ctx := t.Context()
	const name = "claims-3f9a2c1d-exec"
	created := time.Now().UTC().Format(time.RFC3339)
	tags := []types.Tag{{Key: aws.String("claims:run"), Value: aws.String("3f9a2c1d")}, {Key: aws.String("claims:created"), Value: aws.String(created)}}

	r := createRole(t, c, name, lambdaTrust, tags...)
	assert.Equal(t, "arn:aws:iam::123456789012:role/"+name, aws.ToString(r.Arn))
	assert.Equal(t, name, aws.ToString(r.RoleName))
	assert.NotEmpty(t, aws.ToString(r.RoleId))
	assert.WithinDuration(t, time.Now(), aws.ToTime(r.CreateDate), time.Minute)
	assert.Equal(t, []string{name}, s.Roles())

	got, err := c.GetRole(ctx, &iam.GetRoleInput{RoleName: aws.String(name)})
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(aws.ToString(got.Role.AssumeRolePolicyDocument), "%7B%22Version%22"),
		"trust policy = %.30s...; want it URL-encoded, as IAM answers it", aws.ToString(got.Role.AssumeRolePolicyDocument))
	assert.Equal(t, lambdaTrust, decoded(t, got.Role.AssumeRolePolicyDocument), "trust policy read back, URL-decoded")
	assert.Equal(t, tags, got.Role.Tags)

	_, err = c.CreateRole(ctx, &iam.CreateRoleInput{RoleName: aws.String(name), AssumeRolePolicyDocument: aws.String(lambdaTrust)})
	var exists *types.EntityAlreadyExistsException
	require.ErrorAs(t, err, &exists, "a second CreateRole of %s", name)
	assert.Contains(t, exists.ErrorMessage(), name)

	const policy = `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":["dynamodb:GetItem"],"Resource":"arn:aws:dynamodb:us-east-1:123456789012:table/claims-3f9a2c1d"}]}`
	_, err = c.PutRolePolicy(ctx, &iam.PutRolePolicyInput{RoleName: aws.String(name), PolicyName: aws.String("run"), PolicyDocument: aws.String(policy)})
	require.NoError(t, err)
	gp, err := c.GetRolePolicy(ctx, &iam.GetRolePolicyInput{RoleName: aws.String(name), PolicyName: aws.String("run")})
	require.NoError(t, err)
	assert.Equal(t, policy, decoded(t, gp.PolicyDocument))
	lp, err := c.ListRolePolicies(ctx, &iam.ListRolePoliciesInput{RoleName: aws.String(name)})
	require.NoError(t, err)
	assert.Equal(t, []string{"run"}, lp.PolicyNames)

	_, err = c.DeleteRole(ctx, &iam.DeleteRoleInput{RoleName: aws.String(name)})
	var conflict *types.DeleteConflictException
	assert.ErrorAs(t, err, &conflict, "DeleteRole with an inline policy left = %v; want DeleteConflict", err)
	assert.Equal(t, []string{name}, s.Roles(), "a refused DeleteRole deletes nothing")

	_, err = c.DeleteRolePolicy(ctx, &iam.DeleteRolePolicyInput{RoleName: aws.String(name), PolicyName: aws.String("run")})
	require.NoError(t, err)
	_, err = c.GetRolePolicy(ctx, &iam.GetRolePolicyInput{RoleName: aws.String(name), PolicyName: aws.String("run")})
	var missing *types.NoSuchEntityException
	assert.ErrorAs(t, err, &missing, "GetRolePolicy after its deletion = %v; want NoSuchEntity", err)

	_, err = c.DeleteRole(ctx, &iam.DeleteRoleInput{RoleName: aws.String(name)})
	require.NoError(t, err)
	assert.Empty(t, s.Roles())
	_, err = c.GetRole(ctx, &iam.GetRoleInput{RoleName: aws.String(name)})
	require.ErrorAs(t, err, &missing, "GetRole of a deleted role = %v; want NoSuchEntity", err)
	assert.Contains(t, missing.ErrorMessage(), name, "the error names the role")
	var httpErr interface{ HTTPStatusCode() int }
	require.ErrorAs(t, err, &httpErr)
	assert.Equal(t, 404, httpErr.HTTPStatusCode(), "NoSuchEntity's status")
}

// TestListsPage: ListRoles and ListRoleTags give everything across pages of MaxItems through the
// SDK's paginators, in order.
func TestListsPage(t *testing.T) {
	s := start(t, 0)
	c := client(t, s, secret)
	var want []string
	var tags []types.Tag
	for i := range 5 {
		tags = append(tags, types.Tag{Key: aws.String("k" + string(rune('a'+i))), Value: aws.String("v")})
	}
	for _, n := range []string{"claims-a-exec", "claims-b-exec", "claims-c-exec", "claims-d-exec", "claims-e-exec"} {
		createRole(t, c, n, lambdaTrust, tags...)
		want = append(want, n)
	}

	var names []string
	pages := 0
	p := iam.NewListRolesPaginator(c, &iam.ListRolesInput{MaxItems: aws.Int32(2)})
	for p.HasMorePages() {
		out, err := p.NextPage(t.Context())
		require.NoError(t, err)
		pages++
		for _, r := range out.Roles {
			names = append(names, aws.ToString(r.RoleName))
		}
	}
	assert.Equal(t, want, names)
	assert.Equal(t, 3, pages, "pages of 2 for 5 roles")

	var got []types.Tag
	tp := iam.NewListRoleTagsPaginator(c, &iam.ListRoleTagsInput{RoleName: aws.String("claims-c-exec"), MaxItems: aws.Int32(2)})
	for tp.HasMorePages() {
		out, err := tp.NextPage(t.Context())
		require.NoError(t, err)
		got = append(got, out.Tags...)
	}
	assert.Equal(t, tags, got)

	_, err := c.ListRoles(t.Context(), &iam.ListRolesInput{Marker: aws.String("not-a-marker")})
	assert.ErrorContains(t, err, "Invalid Marker")
}

// TestSignaturesAreChecked: a wrong secret or an unknown key is refused with IAM's codes, and
// changes nothing.
func TestSignaturesAreChecked(t *testing.T) {
	s := start(t, 0)
	for _, c := range []struct {
		name string
		cl   *iam.Client
		code string
	}{
		{"wrong secret", client(t, s, "not-the-secret"), "SignatureDoesNotMatch"},
		{"unknown key", iam.New(iam.Options{Region: "us-east-1", BaseEndpoint: aws.String(s.URL()),
			Credentials: credentials.NewStaticCredentialsProvider("AKIDSOMEONEELSE", secret, "")}), "InvalidClientTokenId"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := c.cl.CreateRole(t.Context(), &iam.CreateRoleInput{RoleName: aws.String("x"), AssumeRolePolicyDocument: aws.String(lambdaTrust)})
			var api smithy.APIError
			require.ErrorAs(t, err, &api, "CreateRole = %v; want an API error", err)
			assert.Equal(t, c.code, api.ErrorCode(), "code = %s; want %s (%v)", api.ErrorCode(), c.code, err)
			assert.Empty(t, s.Roles(), "a refused request creates nothing")
		})
	}
}

// TestBadInputIsNamed: a name too long or a policy that is not JSON is refused naming the field.
func TestBadInputIsNamed(t *testing.T) {
	s := start(t, 0)
	c := client(t, s, secret)
	long := strings.Repeat("a", 65)
	_, err := c.CreateRole(t.Context(), &iam.CreateRoleInput{RoleName: aws.String(long), AssumeRolePolicyDocument: aws.String(lambdaTrust)})
	var api smithy.APIError
	require.ErrorAs(t, err, &api)
	assert.Equal(t, "ValidationError", api.ErrorCode())
	assert.Contains(t, api.ErrorMessage(), "roleName")

	_, err = c.CreateRole(t.Context(), &iam.CreateRoleInput{RoleName: aws.String("claims-x-exec"), AssumeRolePolicyDocument: aws.String("{not json")})
	var malformed *types.MalformedPolicyDocumentException
	assert.ErrorAs(t, err, &malformed, "CreateRole with a broken trust policy = %v; want MalformedPolicyDocument", err)
	assert.Empty(t, s.Roles())
}

// TestAssumable: Lambda may assume a role only once it exists, trusts Lambda and has had
// PropagationDelay to reach Lambda.
func TestAssumable(t *testing.T) {
	const delay = 300 * time.Millisecond
	s := start(t, delay)
	c := client(t, s, secret)
	ok := createRole(t, c, "claims-ok-exec", lambdaTrust)
	ec2 := createRole(t, c, "claims-ec2-exec", strings.ReplaceAll(lambdaTrust, "lambda.amazonaws.com", "ec2.amazonaws.com"))
	listed := createRole(t, c, "claims-list-exec",
		`{"Statement":{"Effect":"Allow","Principal":{"Service":["ec2.amazonaws.com","lambda.amazonaws.com"]},"Action":["sts:AssumeRole"]}}`)

	err := s.Assumable(aws.ToString(ok.Arn))
	assert.ErrorContains(t, err, "assumable only after", "a role younger than the delay")

	time.Sleep(delay)
	assert.NoError(t, s.Assumable(aws.ToString(ok.Arn)))
	assert.NoError(t, s.Assumable(aws.ToString(listed.Arn)), "a statement object with lists")
	assert.ErrorContains(t, s.Assumable(aws.ToString(ec2.Arn)), "trust policy")
	assert.ErrorContains(t, s.Assumable("arn:aws:iam::123456789012:role/none"), "does not exist")

	_, err = c.DeleteRole(t.Context(), &iam.DeleteRoleInput{RoleName: ok.RoleName})
	require.NoError(t, err)
	assert.ErrorContains(t, s.Assumable(aws.ToString(ok.Arn)), "does not exist", "a deleted role")
}

// TestPolicyEffectiveAfterPropagation: a role's inline policy is in force only once
// PolicyPropagationDelay has passed since it was last put, as IAM's changes reach other services
// eventually; putting it again starts the wait afresh, and a role that does not exist has none.
func TestPolicyEffectiveAfterPropagation(t *testing.T) {
	const delay = 300 * time.Millisecond
	s := Start(t, Options{Keys: sigv4check.Keys{keyID: secret}, PolicyPropagationDelay: delay})
	c := client(t, s, secret)
	const name = "claims-3f9a2c1d-exec"
	createRole(t, c, name, lambdaTrust)
	assert.True(t, s.PolicyEffective(name), "PolicyEffective of a role without inline policies = false; want true (nothing pending)")
	assert.False(t, s.PolicyEffective("claims-nosuch"), "PolicyEffective of a role that does not exist = true; want false")

	// put returns when the put was sent: the stand-in starts the wait when it serves it, later,
	// so the wait measured from here is at least the delay whatever the round trip took.
	put := func() time.Time {
		t.Helper()
		sent := time.Now()
		_, err := c.PutRolePolicy(t.Context(), &iam.PutRolePolicyInput{
			RoleName: aws.String(name), PolicyName: aws.String("table"),
			PolicyDocument: aws.String(`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"dynamodb:GetItem","Resource":"*"}]}`),
		})
		require.NoError(t, err)
		return sent
	}
	waitEffective := func(since time.Time) time.Duration {
		t.Helper()
		deadline := time.Now().Add(10 * delay)
		for !s.PolicyEffective(name) {
			require.True(t, time.Now().Before(deadline), "the policy never took effect")
			time.Sleep(delay / 20)
		}
		return time.Since(since)
	}

	at := put()
	assert.False(t, s.PolicyEffective(name), "PolicyEffective right after PutRolePolicy = true; want false for %v", delay)
	assert.GreaterOrEqual(t, waitEffective(at), delay, "the policy took effect before the propagation delay")

	at = put()
	assert.False(t, s.PolicyEffective(name), "PolicyEffective right after the policy was put again = true; want false (a new document propagates afresh)")
	assert.GreaterOrEqual(t, waitEffective(at), delay, "the policy put again took effect before the propagation delay")
}
