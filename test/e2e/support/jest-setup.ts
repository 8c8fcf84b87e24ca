/** e2e tests play real video in a real browser: each test may take minutes (bounded by its own waits). */
jest.setTimeout(300_000);
