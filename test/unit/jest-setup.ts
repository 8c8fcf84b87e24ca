/** Unit tests include real loopback servers and short ffmpeg encodes: allow a minute each. */
jest.setTimeout(60_000);
