-- allot PostgreSQL schema, version 4: member attributes; functions re-applied by content hash.

-- MemberMeta's open attributes (version, zone, labels) as MemberMeta.encodeAttributes() writes them
-- (name=value&..., form-encoded, sorted by name): the same text the other stores keep, passed through unparsed.
-- Rows registered before this version read as '' = no attributes. A constant default: no table rewrite.
ALTER TABLE ${schema}.members ADD COLUMN attributes text NOT NULL DEFAULT '';

-- The SHA-256 of the functions.sql applied on top of the row's version (set on the latest version's row only):
-- SchemaMigrator applies functions.sql again whenever it differs from the file of the running code.
ALTER TABLE ${schema}.allot_schema_version ADD COLUMN functions_sha256 text;
