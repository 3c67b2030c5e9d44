/**
 * Checks and takes one request from every bucket of a request in one atomic step (one EVALSHA).
 *
 * A bucket is a continuously refilling balance (hash: tokens, ts) plus the requests of the last
 * 60 s (sorted set scored by time), so that its per-minute cap holds over any rolling minute and
 * not just per refill rate. The request passes only when every bucket has a whole token and room in
 * its minute; then each bucket gives one token and remembers the request. A refused request takes
 * nothing. Time is Redis's own clock, so gateway replicas with skewed clocks share one truth.
 *
 * KEYS: for bucket i, KEYS[2i-1] = balance hash, KEYS[2i] = rolling-minute sorted set. All keys of a
 * call share one hash tag, so the script also runs on Redis Cluster.
 * ARGV: [1] member naming this request (unique), then per bucket: burst, refill per ms, per-minute cap.
 * Returns: {allowed 1|0, retry-after ms, remaining of bucket 1, remaining of bucket 2, ...}.
 */
export const TOKEN_BUCKET_SCRIPT = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + tonumber(time[2]) / 1000
local window = 60000
local buckets = #KEYS / 2
local balances = {}
local allowed = true
local retry = 0

for i = 1, buckets do
  local burst = tonumber(ARGV[3 * i - 1])
  local rate = tonumber(ARGV[3 * i])
  local per_minute = tonumber(ARGV[3 * i + 1])
  local state = redis.call('HMGET', KEYS[2 * i - 1], 'tokens', 'ts')
  local balance = burst
  if state[1] and state[2] then
    local elapsed = math.max(0, now - tonumber(state[2]))
    balance = math.min(burst, tonumber(state[1]) + elapsed * rate)
  end
  balances[i] = balance
  if balance < 1 then
    allowed = false
    retry = math.max(retry, (1 - balance) / rate)
  end

  redis.call('ZREMRANGEBYSCORE', KEYS[2 * i], '-inf', now - window)
  local used = redis.call('ZCARD', KEYS[2 * i])
  if used >= per_minute then
    allowed = false
    local oldest = redis.call('ZRANGE', KEYS[2 * i], used - per_minute, used - per_minute, 'WITHSCORES')
    retry = math.max(retry, tonumber(oldest[2]) + window - now)
  end
end

local result = { allowed and 1 or 0, math.ceil(retry) }
for i = 1, buckets do
  local balance = balances[i]
  if allowed then
    local burst = tonumber(ARGV[3 * i - 1])
    local rate = tonumber(ARGV[3 * i])
    balance = balance - 1
    redis.call('HSET', KEYS[2 * i - 1], 'tokens', balance, 'ts', now)
    redis.call('PEXPIRE', KEYS[2 * i - 1], math.ceil((burst - balance) / rate) + 1000)
    redis.call('ZADD', KEYS[2 * i], now, ARGV[1])
    redis.call('PEXPIRE', KEYS[2 * i], window + 1000)
  end
  result[i + 2] = math.floor(balance)
end
return result
`;
