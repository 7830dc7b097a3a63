/** The SDK's version, sent as `x-svc-sdk-version` and in `User-Agent` (a test keeps it equal to package.json's). */
export const VERSION = '0.4.0';
