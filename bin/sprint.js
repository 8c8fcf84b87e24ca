#!/usr/bin/env node
// The `sprint` command-line entry point (`npx sprint <command> [args]`).
// Dispatches to the compiled command modules under dist/ by a fixed table.
// Each module exports `main(argv: string[]): Promise<number>` (the exit code).
// Plain CommonJS so it runs without a build step of its own.
'use strict';

const fs = require('fs');
const path = require('path');

/** Command name -> compiled module, relative to the package root. */
const COMMANDS = {
  model: { module: 'dist/src/cli/model.js', summary: 'chunk size, fair BDP and outstanding window for given bandwidth and RTT' },
  serve: { module: 'dist/demo/server/cli.js', summary: 'run the demo origin server' },
  content: { module: 'dist/demo/content/cli.js', summary: 'generate the demo DASH content' },
  ab: { module: 'dist/demo/harness/ab-cli.js', summary: 'run an A/B evaluation' },
  report: { module: 'dist/demo/harness/report-cli.js', summary: 'summarise evaluation results' },
  wire: {
    module: 'dist/demo/harness/wire-log-cli.js',
    summary: "a player's requests on the wire, from an origin access log: trains, expanded requests",
  },
  flows: {
    module: 'dist/demo/harness/flows-cli.js',
    summary: 'per connection of a --packets run: queue drops, bursts, ACKs and receive window, from its captures',
  },
  restarts: {
    module: 'dist/demo/harness/restarts-cli.js',
    summary: "Sprint's trains after a pause in a player's log: resume buffer, reserve, draw-down, stalls",
  },
  compact: { module: 'dist/demo/harness/compact-cli.js', summary: "store a results folder's raw run files compressed" },
};

const EXIT_USAGE = 2;
const packageRoot = path.resolve(__dirname, '..');

function usage() {
  const width = Math.max(...Object.keys(COMMANDS).map((name) => name.length));
  const lines = Object.entries(COMMANDS).map(([name, c]) => `  ${name.padEnd(width)}  ${c.summary}`);
  return `Usage: sprint <command> [args]\n\nCommands:\n${lines.join('\n')}\n\nRun "sprint <command> --help" for a command's options.\n`;
}

async function run(argv) {
  const command = argv[0];
  if (command === undefined) {
    process.stderr.write(usage());
    return EXIT_USAGE;
  }
  if (command === '--help' || command === '-h' || command === 'help') {
    process.stdout.write(usage());
    return 0;
  }
  if (!Object.prototype.hasOwnProperty.call(COMMANDS, command)) {
    process.stderr.write(`sprint: unknown command ${JSON.stringify(command)}\n\n${usage()}`);
    return EXIT_USAGE;
  }
  const file = path.join(packageRoot, COMMANDS[command].module);
  if (!fs.existsSync(file)) {
    process.stderr.write(`sprint ${command}: ${path.relative(packageRoot, file)} is missing: run \`npm run build\` first\n`);
    return EXIT_USAGE;
  }
  const mod = require(file);
  if (typeof mod.main !== 'function') {
    process.stderr.write(`sprint ${command}: ${file} does not export main(argv)\n`);
    return EXIT_USAGE;
  }
  const code = await mod.main(argv.slice(1));
  return typeof code === 'number' ? code : 0;
}

run(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err) => {
    process.stderr.write(`sprint: unexpected error: ${err && err.stack ? err.stack : String(err)}\n`);
    process.exitCode = 1;
  },
);
