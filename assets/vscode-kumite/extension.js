// Kumite rules for VS Code: starts `kumite lsp` (a language server on stdin/stdout) for .kmt files.
// Colouring comes from syntaxes/kumite.tmLanguage.json; the server adds diagnostics, completion,
// hover, go to definition, references, rename, outline, semantic tokens and formatting.
'use strict';

const os = require('os');
const vscode = require('vscode');
const { LanguageClient } = require('vscode-languageclient/node');

/** @type {LanguageClient | undefined} */
let client;

/** The `kumite.serverPath` setting, with a leading `~` expanded to the home folder. */
function serverPath() {
  const configured = vscode.workspace.getConfiguration('kumite').get('serverPath') || 'kumite';
  return configured.replace(/^~(?=$|[\\/])/, os.homedir());
}

async function startClient() {
  // No `transport` field on purpose: stdio is the default for an executable, and naming
  // TransportKind.stdio explicitly would make the client append `--stdio` to the arguments.
  const serverOptions = { command: serverPath(), args: ['lsp'] };
  const clientOptions = {
    documentSelector: [
      { scheme: 'file', language: 'kumite' },
      { scheme: 'untitled', language: 'kumite' },
    ],
  };
  client = new LanguageClient('kumite', 'Kumite language server', serverOptions, clientOptions);
  try {
    await client.start();
  } catch (err) {
    vscode.window.showErrorMessage(
      `Kumite: could not start "${serverOptions.command} lsp" (${err && err.message ? err.message : err}). ` +
        'Install kumite on your PATH or set "kumite.serverPath".'
    );
  }
}

async function stopClient() {
  const running = client;
  client = undefined;
  if (running) {
    try {
      await running.stop();
    } catch {
      // The server may never have started; nothing to stop then.
    }
  }
}

/** @param {vscode.ExtensionContext} context */
async function activate(context) {
  // Restart the server when its path changes.
  context.subscriptions.push(
    vscode.workspace.onDidChangeConfiguration(async (e) => {
      if (e.affectsConfiguration('kumite.serverPath')) {
        await stopClient();
        await startClient();
      }
    })
  );
  await startClient();
}

function deactivate() {
  return stopClient();
}

module.exports = { activate, deactivate };
