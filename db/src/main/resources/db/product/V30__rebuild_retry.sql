-- A rebuild retries failures that say nothing about the data for a time budget (product.rebuild.retry-budget), not
-- a number of attempts (docs/rebuild.md "Failures and what they mean"). The row shows why it waits and when its next
-- attempt starts, so GET /v1/rebuilds/{id} can tell an operator:
--   retry_since   the first failure it retried: the budget counts from there
--   retry_code    the stable code of the last retried failure (e.g. RESOLVER_UNAVAILABLE); retry_reason its
--                 "CODE: sentence"
--   next_retry_at set while it waits for its next attempt, cleared when that attempt starts
--   error_code    the stable code "error" starts with
ALTER TABLE rebuild
    ADD COLUMN retry_since   timestamptz,
    ADD COLUMN retry_code    text,
    ADD COLUMN retry_reason  text,
    ADD COLUMN next_retry_at timestamptz,
    ADD COLUMN error_code    text;
