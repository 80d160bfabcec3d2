-- Owners of consumers, leases and exports are token identities (the token's #name, or one derived from its
-- secret), no longer "token-N" by the entry's position in SECURITY_TOKENS. Rows written before carry the
-- positional names; the first start of a release with identities adopts them once for the identity of the entry
-- at that position (TokenIdentityAdoption) and records it here, so a later reordering adopts nothing.
CREATE TABLE token_identity_adoption (
    singleton   boolean     PRIMARY KEY DEFAULT true CHECK (singleton),
    adopted_at  timestamptz NOT NULL DEFAULT now(),
    adopted     integer     NOT NULL
);
COMMENT ON COLUMN retention_consumer.registered_by IS
    'identity of the token that registered it (SECURITY_TOKENS #name or derived from the secret); a consumer-role '
    'token may only act for consumers its identity registered';
COMMENT ON COLUMN retention_lease.created_by IS
    'identity of the token that took the lease; only it (or an operator) exports, reads catch-up pages, renews, releases';
