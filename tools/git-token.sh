#!/bin/sh
# Runs its arguments with the workflow's token (GH_TOKEN) given to git for the server's URL
# through git's environment (GIT_CONFIG_COUNT, _KEY_0, _VALUE_0), as actions/checkout's
# extraheader would give it: the token is in this one command's environment only, never in
# .git/config, where every later step's processes could read it (the live workflow checks out
# with persist-credentials: false and fetches and pushes the history through this).
set -eu
: "${GH_TOKEN:?set GH_TOKEN to the token git is to use}"
: "${GITHUB_SERVER_URL:=https://github.com}"
if [ "$#" -eq 0 ]; then
	echo "usage: tools/git-token.sh COMMAND [ARGS...]" >&2
	exit 2
fi
auth=$(printf 'x-access-token:%s' "$GH_TOKEN" | base64 | tr -d '\n')
# The encoded token is a secret of its own: the log masks it wherever git might print it.
echo "::add-mask::$auth"
GIT_CONFIG_COUNT=1
GIT_CONFIG_KEY_0="http.$GITHUB_SERVER_URL/.extraheader"
GIT_CONFIG_VALUE_0="AUTHORIZATION: basic $auth"
export GIT_CONFIG_COUNT GIT_CONFIG_KEY_0 GIT_CONFIG_VALUE_0
exec "$@"
