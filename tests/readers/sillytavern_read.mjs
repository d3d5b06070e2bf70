// Reads a character card the way SillyTavern does and prints what it found, as JSON.
// The reader (src/character-card-parser.js: PNG text chunks, `ccv3` before `chara`) and the
// validator (src/validator/TavernCardValidator.js) are SillyTavern's own files, taken from its npm
// package by .ci/run; their imports (png-chunks-extract, png-chunk-text, crc) come from npm.
// Usage: node sillytavern_read.mjs SILLYTAVERN_DIR CARD.png|CARD.json
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const [dir, file] = process.argv.slice(2);
const load = (rel) => import(pathToFileURL(path.join(dir, rel)).href);
const { read } = await load("src/character-card-parser.js");
const { TavernCardValidator } = await load("src/validator/TavernCardValidator.js");

const buffer = fs.readFileSync(file);
const text = file.toLowerCase().endsWith(".png") ? read(buffer) : buffer.toString("utf8");
const card = JSON.parse(text);
const validator = new TavernCardValidator(card);
const version = validator.validate();
const error = validator.lastValidationError;
// validate() stops at the first spec that matches (V1 when SillyTavern's V1 copies sit beside `data`),
// so the V2 and V3 rules are also asked for on their own.
process.stdout.write(JSON.stringify({ version, error, v2: validator.validateV2(), v3: validator.validateV3(), card }));
