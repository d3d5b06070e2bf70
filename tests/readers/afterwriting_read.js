// Reads a Fountain file the way afterwriting does and prints what it would print, as JSON.
// The parser is afterwriting's own (aw-parser, with the settings afterwriting uses by default);
// the inline step repeats what its PDF maker does to each token's text (emphasis markers dropped,
// \* and \_ printed as * and _), since the parser leaves that to printing.
const fs = require("fs");
const parser = require("aw-parser").parser;
const text = fs.readFileSync(process.argv[2], "utf8");
const cfg = {
  print_title_page: true, print_headers: true, print_actions: true, print_dialogues: true,
  print_notes: false, print_sections: false, print_synopsis: true, use_dual_dialogue: true,
  merge_multiple_empty_lines: false, each_scene_on_new_page: false, double_space_between_scenes: false,
};
function printed(s) {
  return (s || "")
    .split(/(\\\*)|(\*{1,3})|(\\?_)|(\[\[)|(\]\])/g)
    .filter((a) => a)
    .map((a) => (a === "\\*" || a === "\\_" ? a.substr(1) : /^(\*{1,3}|_|\[\[|\]\])$/.test(a) ? "" : a))
    .join("");
}
const result = parser.parse(text, cfg);
const out = {
  title_page: result.title_page.map((t) => ({ type: t.type, text: printed(t.text) })),
  tokens: result.tokens.map((t) => ({ type: t.type, text: printed(t.text), dual: t.dual || null })),
};
process.stdout.write(JSON.stringify(out));
