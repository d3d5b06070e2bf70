"""A planted run for the export tests: every Fountain construct at the start of a line, emphasis,
note and boneyard markers, and text in every writing system a theatre may receive, long enough to
wrap where wrapping matters (Chinese, Japanese, Korean, Arabic, Hebrew), with Devanagari, Thai,
emoji in zero-width-joiner sequences, combining accents and unusual character names.

`planted_run(store)` writes it straight to the store (the events a run leaves) and returns the run;
`PLANTED` lists every planted line, in the order a script prints them.
"""

from __future__ import annotations

from conftest import make_cast
from studio.store import Store
from studio.store import events as ev

ARABIC = ("كانت الغرفة هادئة جدا، والمطر يطرق النوافذ ببطء، وكل واحد منا ينتظر أن يتكلم الآخر أولا "
          "قبل أن ينطفئ الضوء الأخير في آخر الممر الطويل")
HEBREW = ("החדר היה שקט מאוד, והגשם דפק על החלונות לאט, וכל אחד מאיתנו חיכה שהשני ידבר ראשון "
          "לפני שהאור האחרון במסדרון הארוך יכבה סוף סוף")
CHINESE = "房间里非常安静，雨慢慢地敲打着窗户，我们每个人都在等待对方先开口说话，直到走廊尽头最后一盏灯熄灭为止，谁也没有动。"
JAPANESE = "部屋はとても静かで、雨がゆっくりと窓を叩いていた。私たちはそれぞれ、相手が先に話すのを待っていた。廊下の奥の最後の明かりが消えるまで。"
KOREAN = "방은 아주 조용했고 비가 천천히 창문을 두드렸다. 우리는 각자 상대방이 먼저 말하기를 기다렸다. 복도 끝의 마지막 불이 꺼질 때까지 아무도 움직이지 않았다."
HINDI = "कमरा बहुत शांत था, और बारिश धीरे-धीरे खिड़कियों पर दस्तक दे रही थी।"
THAI = "ห้องเงียบมาก และฝนก็เคาะหน้าต่างอย่างช้าๆ"
EMOJI = "We laughed 👩‍👩‍👧‍👦 👨🏽‍💻 🏳️‍🌈 ❤️‍🔥 🧑‍🚀 👍🏿 🇯🇵 😀"
ACCENTS = "Cafe\u0301 crème, nai\u0308ve Zoë, Åsa, Łódź, Ṩ, ǅ"

# (speaker, text): a speaker of None is a direction by the director; "*x*" alone is business.
LINES: list[tuple[str | None, str]] = [
    (None, "A bare room. Rain."),
    (None, "INT. HOUSE - DAY"),
    (None, "EXT. garden, later"),
    (None, "CUT TO:"),
    (None, "She goes TO: the door."),
    (None, "FADE OUT."),
    (None, "!Bang. @home. .dot #hash =equals ~lyric >arrow"),
    (None, ">centred<"),
    (None, "==="),
    (None, "# A section"),
    (None, "= a synopsis"),
    (None, "...and then nothing."),
    (None, "[[a note]] and /* a boneyard */ and *stars* and _underline_"),
    (None, CHINESE),
    (None, ARABIC),
    (None, HEBREW),
    ("Jenny", "I did *not* say that, _never_."),
    ("Jenny", "*sighs*"),
    ("Jenny", "(aside) This is not business."),
    ("Jenny", "2 * 3 = 6 and snake_case_name and **bold** and ***both***."),
    ("Jenny", "!Bang\n@home\n.dot\n#hash\n=equals\n~lyric\n>arrow\n(open"),
    ("Jenny", "INT. HOUSE - NIGHT\nEXT. ROAD\nI/E CAR\nCUT TO:\nFADE OUT.\nTO:"),
    ("Jenny", "[[not a note]]\n/* not a boneyard */\n*/ nor its end\n==="),
    ("Jenny", "BOB\nJENNY\nMR. SMITH"),
    ("Jenny", "First paragraph.\n\nSecond paragraph, after a blank line."),
    ("Jenny", "*smirks* Oh, comfort? Ha! *rolls her eyes* I grew up in *suburbia*."),
    ("ZOË O'BRIEN_MÜLLER", "Names are hard."),
    ("Ana^", "A caret is not dual dialogue."),
    ("李小龙", CHINESE),
    ("Dr. Who", JAPANESE),
    ("Jenny", KOREAN),
    ("سارة", ARABIC),
    ("Jenny", "Mixed: the word سلام means peace, and שלום too."),
    ("דוד", HEBREW),
    ("Jenny", HINDI),
    ("Jenny", THAI),
    ("Jenny", EMOJI),
    ("Jenny", ACCENTS),
    ("Jenny", "_underline only_"),
    ("Jenny", "Back\\slash \\* and \\_ stay."),
    ("Jenny", "Title: not a title\nCredit: none"),
    ("Jenny", "~ a lyric line\n> an arrow\n< a chevron\n^ a caret\n= equal\n# hash"),
    ("Jenny", "[[\n]]\n/*\n*/\n**\n__"),
    ("Jenny", "Notes [[inside]] a line, a boneyard /* inside */ a line."),
    ("Jenny", "int. kitchen - day\nest. 1920\next. the road"),
    ("Jenny", "FADE IN:\nSMASH CUT TO:\nDISSOLVE TO:"),
    ("Jenny", "(whispers)\n(a whole line in brackets)"),
    ("Jenny", "#1# scene numbers\n.\n..\n...\n!\n@\n~"),
    ("Jenny", "Ünïcödé ligatures ﬁ ﬂ and ½ stay, and Ǆ too."),
    ("Jenny", "الأرقام ١٢٣ and numbers 123 mixed, עם מספרים 456."),
    ("Jenny", "नमस्ते, क्या हाल है? धन्यवाद।\nสวัสดีครับ ขอบคุณมาก"),
    (None, KOREAN),
    (None, JAPANESE),
    (None, HINDI + "\n" + THAI),
    (None, EMOJI),
    (None, "*Sasha leaves.*"),
]


def planted_run(store: Store) -> int:
    """The planted corpus as a run: two scenes with briefs, the lines above, an epilogue with business."""
    cast = make_cast("interview.toml")
    cast.play.title = "The *Planted* Play of O'BRIEN_MÜLLER [[x]]"
    cast.play.author = "Ana_Bo & /*co*/"
    run_id = store.create_run(cast.play.title, cast.play_path, cast.model_dump_json(), {})
    head = None

    def add(kind, text, role=None, character=None, scene=1, turn=1):
        nonlocal head
        head = store.append(run_id, head, kind, text, role=role, character=character, scene=scene, turn=turn).id

    add(ev.SCENE, "Scene 1: INT. a brief *with* markup, _and_ [[more]]")
    half = len(LINES) // 2
    for i, (speaker, text) in enumerate(LINES):
        scene = 1 if i < half else 2
        if i == half:
            add(ev.SCENE, "Scene 2: " + KOREAN, scene=2)
        if speaker is None:
            add(ev.DIRECTION, text, role="director", character="Ashley", scene=scene, turn=i + 1)
        else:
            role = "ego" if speaker == "Jenny" else "other"
            add(ev.STAGE, text, role=role, character=speaker, scene=scene, turn=i + 1)
    add(ev.EPILOGUE, "*sighs* It ended. " + ARABIC + "\n\n" + KOREAN, role="ego", character="Jenny", scene=2,
        turn=len(LINES) + 1)
    return run_id


def planted_line_count() -> int:
    """How many lines are planted: each line of each text, and the scene briefs and epilogue."""
    return sum(len([line for line in text.splitlines() if line.strip()]) for _, text in LINES) + 4
