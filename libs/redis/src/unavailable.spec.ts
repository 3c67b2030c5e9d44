import { isRedisUnavailable } from './unavailable';

describe('isRedisUnavailable', () => {
  it.each([
    ['a closed connection', new Error('Connection is closed.')],
    ['no offline queue', new Error("Stream isn't writeable and enableOfflineQueue options is false")],
    ['a command timeout', new Error('Command timed out')],
    [
      'out of retries',
      Object.assign(new Error('Reached the max retries per request limit (which is 1).'), {
        name: 'MaxRetriesPerRequestError',
      }),
    ],
    [
      'connection refused',
      Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6379'), { code: 'ECONNREFUSED' }),
    ],
  ])('%s: unavailable', (_what, error) => {
    expect(isRedisUnavailable(error)).toBe(true);
  });

  it.each([
    ['a script error', new Error('ERR Error running script')],
    ['a wrong type', new Error('WRONGTYPE Operation against a key holding the wrong kind of value')],
    ['a plain bug', new TypeError('x is not a function')],
  ])('%s: not unavailable', (_what, error) => {
    expect(isRedisUnavailable(error)).toBe(false);
  });
});
