"""A second corpus for the PDF tests: a line in each of thirty-odd writing systems, the hard cases of each
(letters carrying marks no precomposed letter has, long lines without spaces, right-to-left text broken
by digits, commas and hyphens, joining scripts that read right to left), as a playwright's lines.

`WORLD` maps a name to its line; `world_run(store)` writes them to a store as a run, alternating two
speakers, with one of them, the right-to-left lines and the long ones also as directions.
"""

from __future__ import annotations

from conftest import make_cast
from studio.store import Store
from studio.store import events as ev

THAI_LONG = ("ห้องเงียบมากและฝนก็เคาะหน้าต่างอย่างช้าๆคำพูดของเขาทำให้ทุกคนเงียบไปหมดแล้วก็ไม่มีใครพูดอะไร"
             "อีกเลยจนกระทั่งไฟดวงสุดท้ายในห้องโถงยาวดับลงและความเงียบก็กลับมาอีกครั้งหนึ่ง")
WORLD: dict[str, str] = {
    "Yoruba": "Ọ̀rọ̀ ẹ́ yìí dára, ọ̀rẹ́ mi; ṣé o gbọ́?",
    "Lithuanian": "Ką̃ tu sakai? Ji tylėjo, o lietus bẽldė į̃ langą.",
    "Vietnamese": "Căn phòng rất yên tĩnh, mưa gõ chậm vào cửa sổ.",
    "Greek": "Το δωμάτιο ήταν πολύ ήσυχο, και η βροχή χτυπούσε αργά τα παράθυρα.",
    "Cyrillic": "В комнате было очень тихо, и дождь медленно стучал в окна.",
    "Armenian": "Սենյակը շատ հանգիստ էր, և անձրևը դանդաղ թակում էր պատուհանները։",
    "Georgian": "ოთახი ძალიან მშვიდი იყო და წვიმა ნელა აკაკუნებდა ფანჯრებს.",
    "Hebrew": "החדר היה שקט, 3 אנשים חיכו - ואף אחד, אף אחד, לא דיבר עד 22:30.",
    "Arabic": "كانت الغرفة هادئة، وفي الساعة 10 انتظر 3 أشخاص - ولم يتكلم أحد.",
    "Arabic digits": "الأرقام ١٢٣ و٤٥٦، ثم 789-012 في سطر واحد.",
    "Syriac": "ܠܫܢܐ ܣܘܪܝܝܐ ܗܘ ܠܫܢܐ ܥܬܝܩܐ",
    "Thaana": "ދިވެހި ބަސް ލިޔެވެނީ ތާނައިން",
    "N'Ko": "ߒߞߏ ߛߓߍߛߎ߲ ߦߋ߫ ߞߊ߲ ߘߌ߫",
    "Adlam": "𞤀𞤣𞤤𞤢𞤥 𞤆𞤵𞤤𞤢𞤪",
    "Devanagari": "कमरा बहुत शांत था, और बारिश धीरे-धीरे खिड़कियों पर दस्तक दे रही थी।",
    "Bengali": "ঘরটা খুব শান্ত ছিল, আর বৃষ্টি ধীরে ধীরে জানালায় কড়া নাড়ছিল।",
    "Tamil": "அறை மிகவும் அமைதியாக இருந்தது, மழை மெதுவாக ஜன்னலைத் தட்டியது.",
    "Telugu": "గది చాలా నిశ్శబ్దంగా ఉంది, వర్షం నెమ్మదిగా కిటికీలను తడుతోంది.",
    "Kannada": "ಕೋಣೆ ತುಂಬಾ ಶಾಂತವಾಗಿತ್ತು, ಮಳೆ ನಿಧಾನವಾಗಿ ಕಿಟಕಿಯನ್ನು ತಟ್ಟುತ್ತಿತ್ತು.",
    "Malayalam": "മുറി വളരെ ശാന്തമായിരുന്നു, മഴ പതുക്കെ ജനാലയിൽ മുട്ടി.",
    "Gujarati": "ઓરડો ખૂબ શાંત હતો, અને વરસાદ ધીમે ધીમે બારી પર ટકોરા મારતો હતો.",
    "Gurmukhi": "ਕਮਰਾ ਬਹੁਤ ਸ਼ਾਂਤ ਸੀ, ਅਤੇ ਮੀਂਹ ਹੌਲੀ ਹੌਲੀ ਖਿੜਕੀਆਂ ਤੇ ਦਸਤਕ ਦੇ ਰਿਹਾ ਸੀ।",
    "Sinhala": "කාමරය ඉතා නිශ්ශබ්ද විය, වැස්ස සෙමින් ජනේලයට තට්ටු කළේය.",
    "Thai": "ห้องเงียบมาก และฝนก็เคาะหน้าต่างอย่างช้าๆ",
    "Thai, unspaced": THAI_LONG,
    "Lao": "ຫ້ອງງຽບຫຼາຍແລະຝົນກໍເຄາະປ່ອງຢ້ຽມຊ້າໆຄຳເວົ້າຂອງລາວເຮັດໃຫ້ທຸກຄົນງຽບໄປໝົດແລ້ວກໍບໍ່ມີໃຜເວົ້າຫຍັງອີກເລີຍ",
    "Khmer": "បន្ទប់ស្ងាត់ណាស់ហើយភ្លៀងគោះបង្អួចយឺតៗគ្មាននរណាម្នាក់និយាយអ្វីទៀតទេរហូតដល់ភ្លើងចុងក្រោយបានរលត់",
    "Myanmar": "အခန်းက အရမ်းတိတ်ဆိတ်ပြီး မိုးက ပြတင်းပေါက်ကို ဖြည်းဖြည်းချင်း ခေါက်နေတယ်။",
    "Tibetan": "ཁང་པ་ཧ་ཅང་ཁུ་སིམ་པོ་འདུག",
    "Mongolian": "ᠮᠣᠩᠭᠣᠯ ᠪᠢᠴᠢᠭ",
    "Ethiopic": "ክፍሉ በጣም ጸጥ ያለ ነበር፣ ዝናቡም መስኮቱን ቀስ ብሎ ያንኳኳ ነበር።",
    "Cherokee": "ᏣᎳᎩ ᎦᏬᏂᎯᏍᏗ",
    "Canadian Syllabics": "ᓀᐦᐃᔭᐍᐏᐣ ᐊᔭᒧᐏᐣ",
    "Chinese": "房间里非常安静，雨慢慢地敲打着窗户，我们每个人都在等待对方先开口说话，直到走廊尽头最后一盏灯熄灭为止。",
    "Japanese": "部屋はとても静かで、雨がゆっくりと窓を叩いていた。",
    "Korean": "방은 아주 조용했고 비가 천천히 창문을 두드렸다.",
    "Emoji": "We laughed 👩‍👩‍👧‍👦 👍🏽 🇫🇷 1️⃣ ❤️‍🔥",
}
# Right-to-left lines whose cue is right-to-left too, as a cast in those scripts would have.
RTL_NAMES = {"Hebrew": "דוד", "Arabic": "سارة", "N'Ko": "ߒߞߏ", "Syriac": "ܐܦܪܝܡ"}
DIRECTIONS = ("Thai, unspaced", "Lao", "Khmer", "Hebrew", "Arabic", "Yoruba", "Adlam")


def world_run(store: Store) -> int:
    """The corpus as one scene: each line spoken (by a right-to-left name where RTL_NAMES has one), and
    the DIRECTIONS lines again as directions."""
    cast = make_cast("interview.toml")
    run_id = store.create_run("The World", cast.play_path, cast.model_dump_json(), {})
    head = store.append(run_id, None, ev.SCENE, "Scene 1: a room, rain", scene=1, turn=1).id
    for turn, (name, text) in enumerate(WORLD.items(), start=1):
        speaker = RTL_NAMES.get(name) or ("Jenny" if turn % 2 else "Sasha")
        head = store.append(run_id, head, ev.STAGE, text, role="ego" if speaker == "Jenny" else "other",
                            character=speaker, scene=1, turn=turn).id
        if name in DIRECTIONS:
            head = store.append(run_id, head, ev.DIRECTION, text, role="director", character="Ashley", scene=1,
                                turn=turn).id
    return run_id
