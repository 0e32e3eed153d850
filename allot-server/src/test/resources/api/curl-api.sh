#!/usr/bin/env bash
# The task API from a second language: only curl, grep and sed. Usage: curl-api.sh BASE_URL TOKEN POOL
# Prints one line per check; exits non-zero at the first failed check.
set -u
BASE="$1"; TOKEN="$2"; POOL="$3"
T="$BASE/api/v1/pools/$POOL/tasks"
fails=0

# call METHOD URL [BODY] [TOKEN]: sets CODE and BODY
call() {
  local method="$1" url="$2" body="${3-}" tok="${4-}"
  local args=(-s -o /tmp/curl-api-body.$$ -w '%{http_code}' -X "$method")
  [ -n "$tok" ] && args+=(-H "Authorization: Bearer $tok")
  [ -n "$body" ] && args+=(-H 'Content-Type: application/json' --data-binary "$body")
  CODE=$(curl "${args[@]}" "$url")
  BODY=$(cat /tmp/curl-api-body.$$)
  rm -f /tmp/curl-api-body.$$
}

# expect WHAT CODE PATTERN: checks the last call
expect() {
  if [ "$CODE" = "$2" ] && printf '%s' "$BODY" | grep -q -- "$3"; then
    echo "ok   $1"
  else
    echo "FAIL $1: wanted $2 and /$3/, got $CODE $BODY"
    fails=$((fails + 1))
  fi
}

call POST "$T" '{"name":"curl-1","args":{"b":1,"a":"x"},"cost":2}' "$TOKEN"
expect "create" 201 '"name":"curl-1"'
expect "create canonical args" 201 '"args":{"a":"x","b":1}'
expect "create is pending without members" 201 '"status":"Pending"'

call POST "$T" '{ "args": {"a":"x", "b":1}, "name": "curl-1", "cost": 2 }' "$TOKEN"
expect "create again identical" 200 '"revision":1'

call POST "$T" '{"name":"curl-1","args":{"a":"y"},"cost":2}' "$TOKEN"
expect "create conflicting" 409 '"error":"name: task .curl-1. exists'

call GET "$T/curl-1"
expect "get (no token needed)" 200 '"cost":2'
TOKEN_FIELD=$(printf '%s' "$BODY" | sed -n 's/.*"token":\([a-z0-9]*\).*/\1/p')
[ "$TOKEN_FIELD" = "null" ] && echo "ok   token is null while nobody owns it" || { echo "FAIL token field: $TOKEN_FIELD"; fails=$((fails + 1)); }

call GET "$T"
expect "list" 200 '"tasks":\[.*"curl-1"'

call GET "$T?status=Pending"
expect "list by status" 200 '"curl-1"'

call GET "$T?status=Bogus"
expect "list by bad status" 400 '"error":"status: '

call PUT "$T/curl-1" '{"args":{"a":"z"}}' "$TOKEN"
expect "update" 200 '"args":{"a":"z"}'
expect "update bumps revision" 200 '"revision":2'

call POST "$T" '{"name":"curl-2"}'
expect "create without token" 401 '"error":"authorization: '
call DELETE "$T/curl-1" '' 'not-the-token'
expect "delete with a wrong token" 401 'wrong bearer token'

call POST "$BASE/api/v1/pools/no-such-pool/tasks" '{"name":"x"}' "$TOKEN"
expect "unknown pool" 404 "unknown pool 'no-such-pool'"
call POST "$T" '{"name":"bad name"}' "$TOKEN"
expect "bad name" 400 '"error":"name: '
call POST "$T" '{"name":"x","args":[1,2]}' "$TOKEN"
expect "args not an object" 400 '"error":"args: must be a JSON object'
call POST "$T" '{"name":"x",' "$TOKEN"
expect "malformed JSON" 400 '"error":"body: malformed JSON'
call POST "$T" '{"name":"x","cost":0}' "$TOKEN"
expect "bad cost" 400 '"error":"cost: '
BIG=$(printf 'x%.0s' $(seq 1 70000))
call POST "$T" "{\"name\":\"x\",\"args\":{\"a\":\"$BIG\"}}" "$TOKEN"
expect "oversized args" 413 '"error":"args: '
call GET "$T/x"
expect "bad input created nothing" 404 "no task 'x'"
call PATCH "$T/curl-1" '{}' "$TOKEN"
expect "wrong method" 405 '"error":"method: PATCH'
call GET "$BASE/api/v1/no-such-thing"
expect "unknown path" 404 '"error":"path: '

call GET "$BASE/api/v1/pools"
expect "pools" 200 "\"name\":\"$POOL\""
call GET "$BASE/api/v1/pools/$POOL/members"
expect "members" 200 '"members":\['
call GET "$BASE/api/v1/openapi.json"
expect "openapi" 200 '"openapi": *"3'

call DELETE "$T/curl-1" '' "$TOKEN"
expect "delete" 202 '"status":"Deleted"'
call GET "$T/curl-1"
expect "deleted is kept as a tombstone" 200 '"deletedAt":"'

if [ "$fails" -gt 0 ]; then
  echo "$fails checks failed"
  exit 1
fi
echo "all checks passed"
