// ClipBpeTokenizer against ids OpenAI CLIP gives, an independent Python reimplementation of its
// simple_tokenizer (tests/core/reference/clip_bpe_reference.py), and its own contracts:
// truncation, padding, cleaning, round trips, errors, and thread safety.

#include "text/clip_bpe_tokenizer.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <memory>
#include <stdexcept>
#include <thread>

#include <nlohmann/json.hpp>

#include "support/test_dirs.h"

namespace hnclip {
namespace {

using Ids = std::vector<int64_t>;
using nlohmann::json;

const std::string kVocab = std::string(HNCLIP_VOCAB_PATH);
constexpr int64_t kStart = 49406, kEnd = 49407;

// One tokenizer for the suite: loading the 49k merges costs a few tens of ms.
const ClipBpeTokenizer& tok() {
  static const ClipBpeTokenizer t(kVocab);
  return t;
}

template <typename E, typename F>
void expect_throw_containing(F f, const std::vector<std::string>& needles) {
  try {
    f();
    ADD_FAILURE() << "expected an exception";
  } catch (const E& e) {
    for (const auto& n : needles)
      EXPECT_NE(std::string(e.what()).find(n), std::string::npos) << e.what();
  }
}

// The ids between start and end.
Ids inner(const Ids& ids) { return Ids(ids.begin() + 1, ids.end() - 1); }

std::string without_spaces(std::string s) {
  s.erase(std::remove(s.begin(), s.end(), ' '), s.end());
  return s;
}

void write_gzip(const std::filesystem::path& p, const std::string& text) {
  gzFile f = gzopen(p.c_str(), "wb");
  ASSERT_NE(f, nullptr);
  ASSERT_EQ(gzwrite(f, text.data(), static_cast<unsigned>(text.size())),
            static_cast<int>(text.size()));
  gzclose(f);
}

TEST(ClipBpeTokenizer, KnownClipIds) {
  EXPECT_EQ(tok().encode_unpadded("a photo of a cat"),
            (Ids{kStart, 320, 1125, 539, 320, 2368, kEnd}));
  EXPECT_EQ(tok().encode_unpadded("Hello, world!"), (Ids{kStart, 3306, 267, 1002, 256, kEnd}));
  EXPECT_EQ(tok().encode_unpadded("a dog"), (Ids{kStart, 320, 1929, kEnd}));
}

TEST(ClipBpeTokenizer, VocabularyLayout) {
  EXPECT_EQ(tok().vocab_size(), 49408);
  EXPECT_EQ(tok().start_id(), kStart);
  EXPECT_EQ(tok().end_id(), kEnd);
  EXPECT_EQ(tok().kind(), "clip-bpe");
  EXPECT_EQ(tok().context_length(), 77);
  // Byte symbols first ('!' is id 0), then with </w>, then merges: decode shows each.
  EXPECT_EQ(tok().decode({0}), "!");
  EXPECT_EQ(tok().decode({256}), "! ");
  EXPECT_EQ(tok().decode({kStart, 320, kEnd}), "<|startoftext|>a <|endoftext|>");
  EXPECT_THROW(tok().decode({49408}), std::out_of_range);
}

TEST(ClipBpeTokenizer, PadsWithZerosToTheContextLength) {
  const auto ids = tok().encode("a dog");
  ASSERT_EQ(ids.size(), 77u);
  EXPECT_EQ(Ids(ids.begin(), ids.begin() + 4), (Ids{kStart, 320, 1929, kEnd}));
  EXPECT_TRUE(std::all_of(ids.begin() + 4, ids.end(), [](int64_t id) { return id == 0; }));
}

std::string long_caption(int words) {
  std::string s;
  for (int i = 0; i < words; ++i)
    s += (i % 3 == 0 ? "zebra " : i % 3 == 1 ? "grazing near " : "waterholes, ");
  return s;
}

TEST(ClipBpeTokenizer, TruncationKeepsTheEndTokenAndThePrefix) {
  const auto full = ClipBpeTokenizer(kVocab, 1000).encode_unpadded(long_caption(30));
  ASSERT_GT(full.size(), 8u);
  const ClipBpeTokenizer short_tok(kVocab, 8);
  const auto cut = short_tok.encode_unpadded(long_caption(30));
  ASSERT_EQ(cut.size(), 8u);
  EXPECT_EQ(Ids(cut.begin(), cut.end() - 1), Ids(full.begin(), full.begin() + 7));
  EXPECT_EQ(cut.back(), kEnd);
  EXPECT_EQ(short_tok.encode(long_caption(30)), cut);  // exactly full: no padding
  // Exactly context_length ids fit without a cut; one more is cut.
  EXPECT_EQ(ClipBpeTokenizer(kVocab, 4).encode("a dog"), (Ids{kStart, 320, 1929, kEnd}));
  EXPECT_EQ(ClipBpeTokenizer(kVocab, 3).encode("a dog"), (Ids{kStart, 320, kEnd}));
  EXPECT_EQ(ClipBpeTokenizer(kVocab, 2).encode("a dog"), (Ids{kStart, kEnd}));
  EXPECT_THROW(ClipBpeTokenizer(kVocab, 1), std::invalid_argument);
}

TEST(ClipBpeTokenizer, LongClipContextOf248) {
  const ClipBpeTokenizer long_tok(kVocab, 248);
  const auto text = long_caption(60);
  const auto ids = long_tok.encode(text);
  ASSERT_EQ(ids.size(), 248u);
  const auto unpadded = long_tok.encode_unpadded(text);
  ASSERT_GT(unpadded.size(), 77u);  // longer than CLIP's 77, not cut at 248
  ASSERT_LT(unpadded.size(), 248u);
  EXPECT_EQ(unpadded.back(), kEnd);
  EXPECT_EQ(Ids(ids.begin(), ids.begin() + static_cast<long>(unpadded.size())), unpadded);
  EXPECT_EQ(ids[unpadded.size()], 0);
  const auto short_ids = tok().encode(text);
  EXPECT_EQ(Ids(short_ids.begin(), short_ids.end() - 1),
            Ids(unpadded.begin(), unpadded.begin() + 76));
  EXPECT_EQ(short_ids.back(), kEnd);
}

TEST(ClipBpeTokenizer, DigitsAreOneTokenEach) {
  const auto ids = inner(tok().encode_unpadded("2024"));
  ASSERT_EQ(ids.size(), 4u);
  EXPECT_EQ(tok().decode({ids[0]}), "2 ");
  EXPECT_EQ(tok().decode({ids[1]}), "0 ");
  EXPECT_EQ(ids[0], ids[2]);
  EXPECT_EQ(inner(tok().encode_unpadded("in 2024!")).size(), 6u);
}

TEST(ClipBpeTokenizer, PreTokenisationFollowsClipsPattern) {
  using P = std::vector<std::string>;
  EXPECT_EQ(ClipBpeTokenizer::pre_tokenize("it's a dog's life"),
            (P{"it", "'s", "a", "dog", "'s", "life"}));
  EXPECT_EQ(ClipBpeTokenizer::pre_tokenize("don't we'll i'm"),
            (P{"don", "'t", "we", "'ll", "i", "'m"}));
  EXPECT_EQ(ClipBpeTokenizer::pre_tokenize("wow!!! ok...a1b"),
            (P{"wow", "!!!", "ok", "...", "a", "1", "b"}));
  EXPECT_EQ(ClipBpeTokenizer::pre_tokenize("x<|endoftext|>!'s"),
            (P{"x", "<|endoftext|>", "!'", "s"}));
  EXPECT_EQ(ClipBpeTokenizer::pre_tokenize("café ünï 東京 ¾"), (P{"café", "ünï", "東京", "¾"}));
  EXPECT_TRUE(ClipBpeTokenizer::pre_tokenize("").empty());
}

TEST(ClipBpeTokenizer, UnicodeRoundTripsThroughTheByteVocabulary) {
  for (const std::string text :
       {"café", "Ünïcödé", "東京タワーの夜景", "🐱🐶 emoji 👩‍👩‍👧",
        "Ελληνικά γράμματα", "Русский Текст", "e\xcc\x81 combining", "ħ ŀ ŉ ǅ",
        "\xff\xfe bad utf8"}) {
    SCOPED_TRACE(text);
    const auto ids = tok().encode_unpadded(text);
    ASSERT_GE(ids.size(), 3u);
    for (auto id : ids) ASSERT_TRUE(id >= 0 && id < tok().vocab_size());
    EXPECT_EQ(without_spaces(tok().decode(inner(ids))),
              without_spaces(ClipBpeTokenizer::clean_text(text)));
  }
  EXPECT_EQ(ClipBpeTokenizer::clean_text("Ünïcödé"), "ünïcödé");
  EXPECT_EQ(tok().decode(inner(tok().encode_unpadded("Ünïcödé"))), "ünïcödé ");
  EXPECT_EQ(ClipBpeTokenizer::clean_text("ΑΒΓ Привет ĀĂ İ"), "αβγ привет āă i\xcc\x87");
  EXPECT_EQ(ClipBpeTokenizer::clean_text("\xff"), "\xef\xbf\xbd");  // invalid byte -> U+FFFD
}

TEST(ClipBpeTokenizer, HtmlEntitiesAreUnescapedTwice) {
  EXPECT_EQ(tok().encode("a &amp; b"), tok().encode("a & b"));
  EXPECT_EQ(tok().encode("&lt;b&gt;bold"), tok().encode("<b>bold"));
  EXPECT_EQ(tok().encode("it&#39;s"), tok().encode("it's"));
  EXPECT_EQ(tok().encode("a&nbsp;dog"), tok().encode("a dog"));
  EXPECT_EQ(ClipBpeTokenizer::clean_text("&amp;lt;"), "<");  // twice, as CLIP does
  EXPECT_EQ(ClipBpeTokenizer::clean_text("&#x41;&#66;&quot;&apos;"), "ab\"'");
  EXPECT_EQ(ClipBpeTokenizer::clean_text("&eacute &ampx &foo; &#150; &#0; &#1;!"),
            "é &x &foo; \xe2\x80\x93 \xef\xbf\xbd !");
  EXPECT_EQ(ClipBpeTokenizer::clean_text("&# &#x; & ;"), "&# &#x; & ;");
}

// basic_clean's ftfy.fix_text (text/ftfy_fixes.h) runs before the unescaping: a typographic
// apostrophe tokenises as CLIP's contraction, not as a separate "’" piece.
TEST(ClipBpeTokenizer, FtfyFixesComeFirst) {
  using P = std::vector<std::string>;
  EXPECT_EQ(ClipBpeTokenizer::pre_tokenize(ClipBpeTokenizer::clean_text("It\u2019s")), (P{"it", "'s"}));
  EXPECT_EQ(tok().encode("it\u2019s a dog\u2019s \u201cball\u201d"), tok().encode("it's a dog's \"ball\""));
  EXPECT_EQ(tok().encode("it&rsquo;s"), tok().encode("it's"));  // decoded, then uncurled
  EXPECT_EQ(ClipBpeTokenizer::clean_text("\ufb01ne \uff21\uff22\uff23"), "fine abc");
  EXPECT_EQ(ClipBpeTokenizer::clean_text("a\r\nb"), "a b");
  EXPECT_EQ(ClipBpeTokenizer::clean_text("cafe\u0301"), "caf\u00e9");
  EXPECT_EQ(ClipBpeTokenizer::clean_text("a\x01" "b"), "ab");
  EXPECT_EQ(tok().encode("cafe\u0301"), tok().encode("caf\u00e9"));
  // From a line with '<' on ftfy leaves entities to CLIP's own html.unescape: ’ stays curly.
  EXPECT_EQ(ClipBpeTokenizer::clean_text("<i>it&rsquo;s</i>"), "<i>it\u2019s</i>");
  const std::string ascii = "A red circle above a hollow blue square, on a grey background.";
  EXPECT_EQ(ClipBpeTokenizer::clean_text(ascii),
            "a red circle above a hollow blue square, on a grey background.");
}

TEST(ClipBpeTokenizer, WhitespaceAndCaseDoNotMatter) {
  EXPECT_EQ(tok().encode("a   dog\n"), tok().encode("a dog"));
  EXPECT_EQ(tok().encode("\t a\r\ndog \u3000"), tok().encode("a dog"));
  EXPECT_EQ(tok().encode("A PHOTO OF A CAT"), tok().encode("a photo of a cat"));
  EXPECT_EQ(ClipBpeTokenizer::clean_text("  Hello \t\n World  "), "hello world");
}

TEST(ClipBpeTokenizer, EmptyTextIsStartAndEnd) {
  EXPECT_EQ(tok().encode_unpadded(""), (Ids{kStart, kEnd}));
  EXPECT_EQ(tok().encode_unpadded(" \n\t "), (Ids{kStart, kEnd}));
  const auto ids = tok().encode("");
  EXPECT_EQ(ids.size(), 77u);
  EXPECT_EQ(std::count(ids.begin(), ids.end(), 0), 75);
}

TEST(ClipBpeTokenizer, JsonRoundTrip) {
  const ClipBpeTokenizer t(kVocab, 248);
  const auto j = t.to_json();
  EXPECT_EQ(j, (json{{"kind", "clip-bpe"}, {"vocab_path", kVocab}, {"context_length", 248}}));
  const auto back = tokenizer_from_json(j);
  EXPECT_EQ(back->kind(), "clip-bpe");
  EXPECT_EQ(back->context_length(), 248);
  EXPECT_EQ(back->to_json(), j);
  EXPECT_EQ(back->encode("a photo of a cat"), t.encode("a photo of a cat"));

  auto without = [&](const char* key) {
    auto k = j;
    k.erase(key);
    return k;
  };
  expect_throw_containing<std::runtime_error>([&] { tokenizer_from_json(without("vocab_path")); },
                                              {"vocab_path"});
  expect_throw_containing<std::runtime_error>(
      [&] { tokenizer_from_json(without("context_length")); }, {"context_length"});
  auto bad_ctx = j;
  bad_ctx["context_length"] = 1;
  expect_throw_containing<std::runtime_error>([&] { tokenizer_from_json(bad_ctx); },
                                              {"context_length"});
  auto bad_path = j;
  bad_path["vocab_path"] = "/nonexistent/vocab.txt.gz";
  expect_throw_containing<std::runtime_error>([&] { tokenizer_from_json(bad_path); },
                                              {"vocab_path", "/nonexistent/vocab.txt.gz"});
}

TEST(ClipBpeTokenizer, BadVocabularyFilesAreNamed) {
  test::ScratchDir dir;
  const auto missing = (dir / "missing.txt.gz").string();
  expect_throw_containing<std::runtime_error>([&] { ClipBpeTokenizer t(missing); }, {missing});

  const auto plain = dir / "plain.txt";
  test::write_text_file(plain, "#version: 0.2\ni n\nt h\n");
  expect_throw_containing<std::runtime_error>([&] { ClipBpeTokenizer t(plain.string()); },
                                              {plain.string(), "gzip"});

  const auto few = dir / "few.txt.gz";
  write_gzip(few, "#version: 0.2\ni n\nt h\na n\n");
  expect_throw_containing<std::runtime_error>([&] { ClipBpeTokenizer t(few.string()); },
                                              {few.string(), "line 5"});

  const auto malformed = dir / "malformed.txt.gz";
  write_gzip(malformed, "#version: 0.2\ni n\nthree parts here\n");
  expect_throw_containing<std::runtime_error>([&] { ClipBpeTokenizer t(malformed.string()); },
                                              {malformed.string(), "line 3"});

  // The real file cut in half: a corrupt gzip stream.
  const auto bytes = test::read_text_file(kVocab);
  const auto truncated = dir / "truncated.txt.gz";
  test::write_text_file(truncated, bytes.substr(0, bytes.size() / 2));
  expect_throw_containing<std::runtime_error>([&] { ClipBpeTokenizer t(truncated.string()); },
                                              {truncated.string(), "truncated"});
}

TEST(ClipBpeTokenizer, ConcurrentEncodesAgreeWithASequentialOne) {
  std::vector<std::string> captions;
  const char* words[] = {"zebra",    "kitchen", "Skateboarding", "giraffes",
                         "umbrella", "München", "2024",          "it's",
                         "&amp;",    "東京",    "photographers", "overcast"};
  for (int i = 0; i < 400; ++i) {
    std::string c;
    for (int w = 0; w < 8; ++w)
      c += std::string(words[(i * 7 + w * 5) % 12]) + (w % 3 ? " " : "ing ");
    captions.push_back(c);
  }
  const ClipBpeTokenizer sequential(kVocab);
  std::vector<Ids> expected;
  for (const auto& c : captions) expected.push_back(sequential.encode(c));

  const ClipBpeTokenizer shared(kVocab);  // fresh cache, filled by all threads at once
  std::vector<std::vector<Ids>> got(4);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (size_t k = 0; k < captions.size(); ++k)
        got[t].push_back(shared.encode(captions[(k + 97 * t) % captions.size()]));
    });
  }
  for (auto& th : threads) th.join();
  for (int t = 0; t < 4; ++t) {
    for (size_t k = 0; k < captions.size(); ++k)
      ASSERT_EQ(got[t][k], expected[(k + 97 * t) % captions.size()]);
  }
}

// Against tests/core/reference/clip_bpe_reference.py (CLIP's algorithm on Python's html, re,
// str.lower, with ftfy's default fixes re-stated on unicodedata). Strings avoid what the C++ side
// documents as different: ftfy's mojibake repair (done by neither) and the Greek final sigma.
TEST(ClipBpeTokenizer, MatchesTheIndependentPythonReference) {
  const std::vector<std::string> texts = {
      "a photo of a cat",
      "Hello, world!",
      "A man riding a wave on top of a surfboard.",
      "Two dogs playing in the snow; one's brown, the other's white.",
      "don't we'll they're I've you'd I'M",
      "rock'n'roll 'quoted' ''double''",
      "wow!!! ok... (really?) [yes] {no} #hashtag @user",
      "https://example.com/path?q=1&x=2",
      "3.14159 and 1,000,000 and 2024-11-30",
      "x² ½ Ⅻ ٣ 〇",
      "café Ünïcödé naïve façade",
      "東京タワーの夜景、とても綺麗です。",
      "🐱🐶 emoji 👩‍👩‍👧 ❤️",
      "Ελληνικά γράμματα",
      "Русский Текст и ещё",
      "e\xcc\x81 combining marks",
      "İstanbul ſtop 'ſ",
      "a &amp; b &lt;i&gt; &amp;amp; &ampx &eacute; &#128512; &#150; &#x1F600; &nbsp;x",
      "tabs\tand\nnewlines\r\n and \u2003 em spaces",
      "a<|endoftext|>b <|startoftext|> <|ENDOFTEXT|>",
      "supercalifragilisticexpialidocious antidisestablishmentarianism",
      "",
      "   ",
      "!!!",
      "'s",
      "the quick brown fox jumps over the lazy dog near the riverbank at sunset while geese fly",
      "ABCDEFGHIJKLMNOPQRSTUVWXYZ abcdefghijklmnopqrstuvwxyz 0123456789",
      "\"Quoted\" — dash – en-dash … ellipsis",
      "ǅemal ǈ Ǳ ﬁ ligature ＦＵＬＬ",
      "mixed123abc456 a1 1a",
      "\xc2\xa0leading nbsp",
      "\x7f\x01 controls",
      "It\u2019s the dog\u2019s \u2018toy\u2019, \u201cbig\u201d \u201elow\u201f \u02bcok \u2032 \u2033",
      "it&rsquo;s &ldquo;x&rdquo; &amp;rsquo; &EACUTE; &#59; <b>it&rsquo;s</b>",
      "line one &amp;\nline <two> &amp;\r\nthree &rsquo;\u2028four\u0085five",
      "c1 \u0092 \u0093q\u0094 \u0080 \u0081 \u0096",
      "\x1b[1;31mred\x1b[0m \x1b[x \ufeffbom \u206a \ufffc \u200d\u200f",
      "\u0132 \u0149 \u01c4 \u01c8 \u01f2 \ufb00\ufb03\ufb05\ufb06",
      "\uff76\uff9e \uff8a\uff9f \uff5e\uffe5\u3000x \uffe8",
      "A\u030a \u1100\u1161\u11a8 A\u0323\u0307 \u2126",
  };
  test::ScratchDir dir;
  test::write_text_file(dir / "in.json", json{{"vocab", kVocab}, {"texts", texts}}.dump());
  std::string out, err;
  const std::string cmd = std::string(HNCLIP_REFERENCE_PYTHON) + " " + HNCLIP_TEST_SOURCE_DIR +
                          "/core/reference/clip_bpe_reference.py " + (dir / "in.json").string() +
                          " " + (dir / "out.json").string();
  ASSERT_EQ(test::run_command(cmd, &out, &err), 0) << "reference script failed: " << err;
  const auto ref = json::parse(test::read_text_file(dir / "out.json"))["ids"];
  ASSERT_EQ(ref.size(), texts.size());
  const ClipBpeTokenizer wide(kVocab, 1000);
  for (size_t i = 0; i < texts.size(); ++i) {
    SCOPED_TRACE("text " + std::to_string(i) + ": " + texts[i]);
    EXPECT_EQ(wide.encode_unpadded(texts[i]), ref[i].get<Ids>());
  }
}

}  // namespace
}  // namespace hnclip
