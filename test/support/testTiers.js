// The integration tier: the slowest unit test files (real conversions, worker pools, child processes, object
// storage, big indexes), which `npm run test:fast` leaves out and `npm run test:integration` runs; `npm test`
// runs every file either way. A new test file joins the fast tier unless it is listed here.
// Chosen by timing every file once (HAIKU_TEST_TIMINGS=<file>, test/support/specWithSummary.js) on a busy 2-core
// machine: these 30 took 1182 of 1327 s, the other 78 files 145 s (the seconds below are from that run).
// Then the fast tier alone, with the files added since (integrity, full disk, long MCP calls) timed once more: its
// slowest files (the last group) joined this list, leaving ~75 s of tests to it on a machine busier still.
const integrationTestFiles = [
  'test/unit/convert/hostileInput.test.ts', // 153 s
  'test/unit/convert/bigText.test.ts', // 36 s (2.6 MB of Markdown whole and in segments, 12 MB through a worker)
  'test/unit/index/documentParts.test.ts', // 51 s (a 27k-item document through a worker in parts, five times)
  'test/unit/ocr/ocrEngine.test.ts', // 20 s (Tesseract in WebAssembly)
  'test/unit/convert/image.test.ts', // 18 s (OCR of every image format)
  'test/unit/index/indexer.test.ts', // 137 s
  'test/unit/convert/conversionPool.test.ts', // 91 s
  'test/unit/core/chunkTokenCounting.test.ts', // 71 s
  'test/unit/store/objectStorage.test.ts', // 66 s
  'test/unit/store/objectStorageLease.test.ts', // 62 s
  'test/unit/store/bucketMirror.test.ts', // 48 s (s3rver, several publishes)
  'test/unit/index/scannerUnreadable.test.ts', // 50 s
  'test/unit/store/writerLease.test.ts', // 50 s
  'test/unit/sandbox/codeSandbox.test.ts', // 50 s
  'test/unit/convert/cli.test.ts', // 45 s
  'test/unit/store/reindexBurstSearch.test.ts', // 42 s
  'test/unit/cli/progress.test.ts', // 40 s
  'test/unit/store/recentChunks.test.ts', // 35 s
  'test/unit/store/killedRebuild.test.ts', // 31 s
  'test/unit/mcp/stdioServer.test.ts', // 29 s
  'test/unit/index/cliCommands.test.ts', // 29 s
  'test/unit/convert/pdf.test.ts', // 26 s
  'test/unit/convert/pdfOcr.test.ts', // ~30 s (OCR of two scanned pages)
  'test/unit/convert/latex.test.ts', // 19 s (six PDF figures rendered)
  'test/unit/core/chunkInvariants.test.ts', // 23 s
  'test/unit/cli/visualize.test.ts', // 17 s
  'test/unit/store/lanceStore.test.ts', // 15 s
  'test/unit/core/preTokenizer.test.ts', // 14 s
  'test/unit/sandbox/realIndex.test.ts', // 13 s
  'test/unit/convert/convertFile.test.ts', // 13 s
  'test/unit/sandbox/binaryJson.test.ts', // 13 s
  'test/unit/convert/corpus.test.ts', // 12 s
  'test/unit/cli/standardInput.test.ts', // 12 s
  'test/unit/agent/analysisTools.test.ts', // 12 s
  'test/unit/store/pictures.test.ts', // 11 s
  'test/unit/eval/scifactPipeline.test.ts', // 11 s
  'test/unit/cli/exitCodes.test.ts', // 11 s
  // The packaging tests read the built VSIX files and npm tarball (`npm test` builds them first; when missing they
  // build them: minutes) and install the tarball from the registry.
  'test/unit/packaging/vsixContents.test.ts', // 18 s with the VSIX files built
  'test/unit/packaging/npmTarball.test.ts', // 60 s with the tarball built
  'test/unit/packaging/installedVsixMcp.test.ts', // 22 s with the VSIX built
  'test/unit/packaging/installedVsixCanvas.test.ts', // 8 s with the VSIX built (unpacks it, converts a PDF)
  // The fast tier's slowest, timed on their own.
  'test/unit/index/indexIntegrity.test.ts', // 325 s
  'test/unit/store/fullDiskRuns.test.ts', // 220 s
  'test/unit/mcp/longCall.test.ts', // 100 s
  'test/unit/store/firstRunRace.test.ts', // 53 s
  'test/unit/mcp/httpAuth.test.ts', // 32 s
  'test/unit/mcp/serverStart.test.ts', // 17 s
  'test/unit/mcp/configuredServer.test.ts', // 16 s
  'test/unit/mcp/httpServer.test.ts', // 16 s
  'test/unit/mcp/bundledServer.test.ts', // 15 s
  'test/unit/index/tokenizerLoading.test.ts', // 14 s
  'test/unit/convert/pictureInputs.test.ts', // 11 s
  'test/unit/mcp/toolContracts.test.ts', // 11 s
  'test/unit/index/writeBatchSlices.test.ts', // 11 s
  'test/unit/visualize/pageRenderer.test.ts', // 9 s
  'test/unit/convert/pictures.test.ts', // 9 s
  'test/unit/mcp/httpSessions.test.ts', // 8 s
  'test/unit/agent/realIndex.test.ts', // 6 s
  // Slow tests added later still, from a third timed run of the fast tier (their slowest test's seconds).
  'test/unit/store/unansweringBucket.test.ts', // 41 s
  'test/unit/store/largeDocumentItems.test.ts', // 34 s
  'test/unit/core/contextExpansionCorpus.test.ts', // 18 s
  'test/unit/sandbox/hostCallsInFlight.test.ts', // 15 s
  'test/unit/convert/oversizedPictures.test.ts', // 14 s
];

module.exports = { integrationTestFiles };
