// html_unescape against Python's html.unescape (/usr/bin/python3) on tricky references, and
// fixed cases that document the rules.

#include "text/html_unescape.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "support/test_dirs.h"

namespace hnclip {
namespace {

TEST(HtmlUnescape, FixedCases) {
  EXPECT_EQ(html_unescape("no references"), "no references");
  EXPECT_EQ(html_unescape("&amp; &lt; &gt; &quot; &apos; &#39; &nbsp;"), "& < > \" ' ' \xc2\xa0");
  EXPECT_EQ(html_unescape("&amp;lt;"), "&lt;");  // one level per call
  EXPECT_EQ(html_unescape("&#65&#x42;&#X43"), "ABC");
  EXPECT_EQ(html_unescape("&ampx &notit; &unknown;"), "&x \xc2\xacit; &unknown;");
  EXPECT_EQ(html_unescape("&#150;&#0;&#1;&#xD800;&#99999999999;"),
            "\xe2\x80\x93\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
  EXPECT_EQ(html_unescape("& &# &#x &;"), "& &# &#x &;");
}

TEST(HtmlUnescape, MatchesPythonsHtmlUnescape) {
  const std::vector<std::string> cases = {
      "&amp;&AMP;&amp&AMP",
      "&lt;b&gt;bold&lt;/b&gt;",
      "&eacute;&eacute&Eacute;&eacutex",
      "&notin; &notin &noti",
      "&CounterClockwiseContourIntegral; &CounterClockwiseContourIntegralX;",
      "&NotEqualTilde; &nbsp&nbsp;",
      "&#128512; &#x1F600; &#x1f600 &#128;&#129;&#159; &#13; &#11; &#127; &#xFDD0; &#xFFFE; "
      "&#x10FFFF;",
      "&#xD7FF; &#xE000; &#1114112; &#000065; &#x0041;",
      "a&b c & d &&amp; &;amp; &#;",
      "caf\xc3\xa9&eacute;&ampé",
      "&abcdefghijklmnopqrstuvwxyzabcdefghij; &amp" + std::string(40, 'x'),
      "&\t&\n&<&#&;x",
      "&fjlig; &ThickSpace;",
      "&lt&gt&quot&copy&reg&trade;&hellip;&mdash;&euro;",
  };
  test::ScratchDir dir;
  test::write_text_file(dir / "in.json", nlohmann::json(cases).dump());
  test::write_text_file(dir / "ref.py",
                        "import html, json, sys\n"
                        "cases = json.load(open(sys.argv[1], encoding='utf-8'))\n"
                        "json.dump([html.unescape(c) for c in cases], open(sys.argv[2], 'w'))\n");
  std::string out, err;
  ASSERT_EQ(
      test::run_command(std::string(HNCLIP_REFERENCE_PYTHON) + " " + (dir / "ref.py").string() +
                            " " + (dir / "in.json").string() + " " + (dir / "out.json").string(),
                        &out, &err),
      0)
      << err;
  const auto ref = nlohmann::json::parse(test::read_text_file(dir / "out.json"));
  ASSERT_EQ(ref.size(), cases.size());
  for (size_t i = 0; i < cases.size(); ++i)
    EXPECT_EQ(html_unescape(cases[i]), ref[i].get<std::string>()) << cases[i];
}

}  // namespace
}  // namespace hnclip
