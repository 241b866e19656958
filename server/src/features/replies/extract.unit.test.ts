import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { simpleParser } from 'mailparser';
import { describe, expect, it } from 'vitest';
import { extractReply } from './extract.js';
import { MARKERS } from './markers.js';

const KITH = 'Kith <noreply@kith.example>';

// The quoted Kith mail under a reply, as Gmail and Thunderbird quote it (its own "-- " included).
const QUOTED_DIGEST = [
  '> Hello Ann,',
  '>',
  '> Here is what is new in your groups since the last e-mail.',
  '>',
  '> * Picnic on Sunday',
  '>   New post by Ben',
  '>',
  '> -- ',
  '> Sent by Kith at https://kith.example.',
].join('\n');

// The unquoted copy of the mail under Outlook's header block.
const OUTLOOK_BODY = 'Hello Ann,\n\nHere is what is new in your groups since the last e-mail.\n\n-- \nSent by Kith.';

interface Language {
  lang: string;
  /** A sentence of a reply, in the language. */
  reply: string;
  /** Gmail's attribution line in that language. */
  gmail: string;
  /** Outlook's quoted header block in that language. */
  outlook: string[];
  /** Outlook's separator line. */
  separator: string;
  /** A mobile footer. */
  footer: string;
}

const LANGUAGES: Language[] = [
  {
    lang: 'en_US',
    reply: "I'll bring the cake.",
    gmail: `On Fri, Nov 27, 2026 at 10:00 AM ${KITH} wrote:`,
    outlook: [
      `From: ${KITH}`,
      'Sent: Friday, November 27, 2026 10:00 AM',
      'To: Ann <ann@example.org>',
      'Subject: 2 new messages',
    ],
    separator: '-----Original Message-----',
    footer: 'Sent from my iPhone',
  },
  {
    lang: 'cs_CZ',
    reply: 'Přinesu dort.',
    gmail: `Dne pá 27. 11. 2026 v 10:00 odesílatel ${KITH} napsal:`,
    outlook: [
      `Od: ${KITH}`,
      'Odesláno: pátek 27. listopadu 2026 10:00',
      'Komu: Jana <jana@example.cz>',
      'Předmět: 2 nové zprávy',
    ],
    separator: '-----Původní zpráva-----',
    footer: 'Odesláno z iPhonu',
  },
  {
    lang: 'de_DE',
    reply: 'Ich bringe den Kuchen mit.',
    gmail: `Am Fr., 27. Nov. 2026 um 10:00 Uhr schrieb ${KITH}:`,
    outlook: [
      `Von: ${KITH}`,
      'Gesendet: Freitag, 27. November 2026 10:00',
      'An: Jonas <jonas@example.de>',
      'Betreff: 2 neue Nachrichten',
    ],
    separator: '-----Ursprüngliche Nachricht-----',
    footer: 'Von meinem iPhone gesendet',
  },
  {
    lang: 'es_ES',
    reply: 'Yo llevo la tarta.',
    gmail: `El vie, 27 nov 2026 a las 10:00, Kith (<noreply@kith.example>) escribió:`,
    outlook: [
      `De: ${KITH}`,
      'Enviado: viernes, 27 de noviembre de 2026 10:00',
      'Para: Lucía <lucia@example.es>',
      'Asunto: 2 mensajes nuevos',
    ],
    separator: '-----Mensaje original-----',
    footer: 'Enviado desde mi iPhone',
  },
  {
    lang: 'fr_FR',
    reply: "J'apporte le gâteau.",
    gmail: `Le ven. 27 nov. 2026 à 10:00, ${KITH} a écrit :`,
    outlook: [
      `De : ${KITH}`,
      'Envoyé : vendredi 27 novembre 2026 10:00',
      'À : Anne <anne@example.fr>',
      'Objet : 2 nouveaux messages',
    ],
    separator: "-----Message d'origine-----",
    footer: 'Envoyé de mon iPhone',
  },
  {
    lang: 'hu_HU',
    reply: 'Hozom a tortát.',
    gmail: `${KITH} ezt írta (időpont: 2026. nov. 27., P, 10:00):`,
    outlook: [
      `Feladó: ${KITH}`,
      'Elküldve: 2026. november 27., péntek 10:00',
      'Címzett: Anna <anna@example.hu>',
      'Tárgy: 2 új üzenet',
    ],
    separator: '-----Eredeti üzenet-----',
    footer: 'Az iPhone-omról küldve',
  },
  {
    lang: 'ko_KR',
    reply: '케이크는 제가 가져갈게요.',
    gmail: `2026년 11월 27일 (금) 오전 10:00, ${KITH}님이 작성:`,
    outlook: [
      `보낸 사람: ${KITH}`,
      '보낸 날짜: 2026년 11월 27일 금요일 오전 10:00',
      '받는 사람: 민지 <minji@example.kr>',
      '제목: 새 메시지 2개',
    ],
    separator: '-----원본 메시지-----',
    footer: 'iPhone에서 보냄',
  },
  {
    lang: 'nb_NO',
    reply: 'Jeg tar med kaken.',
    gmail: `fre. 27. nov. 2026 kl. 10:00 skrev ${KITH}:`,
    outlook: [
      `Fra: ${KITH}`,
      'Sendt: fredag 27. november 2026 10:00',
      'Til: Ingrid <ingrid@example.no>',
      'Emne: 2 nye meldinger',
    ],
    separator: '-----Opprinnelig melding-----',
    footer: 'Sendt fra min iPhone',
  },
  {
    lang: 'nl_NL',
    reply: 'Ik neem de taart mee.',
    gmail: `Op vr 27 nov 2026 om 10:00 schreef ${KITH}:`,
    outlook: [
      `Van: ${KITH}`,
      'Verzonden: vrijdag 27 november 2026 10:00',
      'Aan: Sanne <sanne@example.nl>',
      'Onderwerp: 2 nieuwe berichten',
    ],
    separator: '-----Oorspronkelijk bericht-----',
    footer: 'Verzonden vanaf mijn iPhone',
  },
  {
    lang: 'pt_BR',
    reply: 'Eu levo o bolo.',
    gmail: `Em sex., 27 de nov. de 2026 às 10:00, ${KITH} escreveu:`,
    outlook: [
      `De: ${KITH}`,
      'Enviado em: sexta-feira, 27 de novembro de 2026 10:00',
      'Para: Ana <ana@example.com.br>',
      'Assunto: 2 novas mensagens',
    ],
    separator: '-----Mensagem original-----',
    footer: 'Enviado do meu iPhone',
  },
  {
    lang: 'ru_RU',
    reply: 'Я принесу торт.',
    gmail: `пт, 27 нояб. 2026 г. в 10:00, ${KITH}:`,
    outlook: [
      `От: ${KITH}`,
      'Отправлено: 27 ноября 2026 г. 10:00',
      'Кому: Ольга <olga@example.ru>',
      'Тема: 2 новых сообщения',
    ],
    separator: '-----Исходное сообщение-----',
    footer: 'Отправлено с iPhone',
  },
  {
    lang: 'sk_SK',
    reply: 'Prinesiem koláč.',
    gmail: `pi 27. 11. 2026 o 10:00 ${KITH} napísal(a):`,
    outlook: [
      `Od: ${KITH}`,
      'Odoslané: piatok 27. novembra 2026 10:00',
      'Komu: Zuzana <zuzana@example.sk>',
      'Predmet: 2 nové správy',
    ],
    separator: '-----Pôvodná správa-----',
    footer: 'Odoslané z iPhonu',
  },
  {
    lang: 'ta_IN',
    reply: 'நான் கேக் கொண்டு வருகிறேன்.',
    gmail: `வெ., 27 நவ., 2026, முற்பகல் 10:00 அன்று, ${KITH} எழுதியது:`,
    outlook: [
      `அனுப்புநர்: ${KITH}`,
      'அனுப்பப்பட்டது: 27 நவம்பர் 2026 10:00',
      'பெறுநர்: மீனா <meena@example.in>',
      'பொருள்: 2 புதிய செய்திகள்',
    ],
    separator: '-----அசல் செய்தி-----',
    footer: 'எனது iPhone இலிருந்து அனுப்பப்பட்டது',
  },
  {
    lang: 'zgh',
    reply: 'ⴰⴷ ⴷ ⴰⵡⵉⵖ ⴰⵖⵔⵓⵎ.',
    gmail: `ⴰⵙⵙ 27/11/2026 ⴳ 10:00, ⵢⵓⵔⴰ ${KITH}:`,
    outlook: [`ⵙⴳ: ${KITH}`, 'ⵉⵜⵜⵓⵣⵏ: 27/11/2026 10:00', 'ⵖⵔ: ⵜⵉⵍⵉⵍⵉ <tilili@example.ma>', 'ⴰⵙⵏⵜⵍ: 2 ⵏ ⵜⴱⵔⴰⵜⵉⵏ'],
    separator: '-----ⵜⴰⴱⵔⴰⵜ ⵜⴰⵏⵚⵍⵉⵜ-----',
    footer: 'ⵉⵜⵜⵓⵣⵏ ⵙⴳ iPhone ⵉⵏⵓ',
  },
  {
    lang: 'zh_Hans',
    reply: '我带蛋糕。',
    gmail: `${KITH} 于2026年11月27日周五 10:00写道：`,
    outlook: [
      `发件人: ${KITH}`,
      '发送时间: 2026年11月27日 10:00',
      '收件人: 小明 <xiaoming@example.cn>',
      '主题: 你的小组有 2 条新消息',
    ],
    separator: '-----原始邮件-----',
    footer: '发自我的iPhone',
  },
];

describe('extractReply: the 15 languages', () => {
  it('covers every language of markers.ts', () => {
    expect(LANGUAGES.map((l) => l.lang).sort()).toEqual(Object.keys(MARKERS).sort());
  });

  describe.each(LANGUAGES)('$lang', ({ reply, gmail, outlook, separator, footer }) => {
    it("cuts at Gmail's attribution and the quote under it", () => {
      expect(extractReply({ text: `${reply}\n\n${gmail}\n\n${QUOTED_DIGEST}\n` })).toBe(reply);
    });

    it("cuts at Gmail's attribution wrapped over two lines", () => {
      const at = gmail.indexOf('<noreply');
      const wrapped = `${gmail.slice(0, at)}<\n${gmail.slice(at + 1)}`;
      expect(extractReply({ text: `${reply}\n\n${wrapped}\n\n${QUOTED_DIGEST}` })).toBe(reply);
    });

    it("cuts at Outlook's header block, with and without the underscore rule", () => {
      const block = outlook.join('\r\n');
      expect(extractReply({ text: `${reply}\r\n\r\n${block}\r\n\r\n${OUTLOOK_BODY}` })).toBe(reply);
      const rule = '_'.repeat(32);
      expect(extractReply({ text: `${reply}\n\n${rule}\n${block}\n\n${OUTLOOK_BODY}` })).toBe(reply);
    });

    it('cuts at the "Original Message" separator and at Thunderbird\'s dashed one', () => {
      expect(extractReply({ text: `${reply}\n\n${separator}\n${outlook.join('\n')}\n\n${OUTLOOK_BODY}` })).toBe(reply);
      const inner = separator.replace(/-+/g, '');
      expect(extractReply({ text: `${reply}\n\n-------- ${inner} --------\n${OUTLOOK_BODY}` })).toBe(reply);
    });

    it('cuts at the mobile footer', () => {
      expect(extractReply({ text: `${reply}\n\n${footer}\n\n> ${gmail}\n>\n${QUOTED_DIGEST}` })).toBe(reply);
      expect(extractReply({ text: `${reply}\n\n${footer}` })).toBe(reply);
    });

    it('drops the quote of an HTML mail (Gmail)', () => {
      const html = `<div dir="ltr">${reply}</div><br><div class="gmail_quote"><div dir="ltr" class="gmail_attr">${gmail.replace(/</g, '&lt;').replace(/>/g, '&gt;')}<br></div><blockquote class="gmail_quote"><p>Hello Ann,</p></blockquote></div>`;
      expect(extractReply({ html })).toBe(reply);
    });
  });
});

describe('extractReply: Apple Mail and Thunderbird attributions', () => {
  const cases: [string, string][] = [
    ['Apple Mail en', `On Nov 27, 2026, at 10:00, ${KITH} wrote:`],
    ['Apple Mail de', `Am 27.11.2026 um 10:00 schrieb ${KITH}:`],
    ['Apple Mail fr', `Le 27 nov. 2026 à 10:00, ${KITH} a écrit :`],
    ['Apple Mail nl', `Op 27 nov. 2026 om 10:00 heeft ${KITH} het volgende geschreven:`],
    ['Apple Mail ko', `2026. 11. 27. 오전 10:00, ${KITH} 작성:`],
    ['Apple Mail zh', `2026年11月27日 10:00，${KITH} 写道：`],
    ['Apple Mail ru', `27 нояб. 2026 г., в 10:00, ${KITH} написал(а):`],
    ['Apple Mail es', `El 27 nov 2026, a las 10:00, ${KITH} escribió:`],
    ['Apple Mail pt', `Em 27 de nov. de 2026, à(s) 10:00, ${KITH} escreveu:`],
    ['Thunderbird en', 'On 11/27/26 10:00 AM, Kith wrote:'],
    ['Thunderbird de', 'Am 27.11.26 um 10:00 schrieb Kith:'],
    ['Thunderbird fr', 'Le 27/11/2026 à 10:00, Kith a écrit :'],
    ['Thunderbird ru', '27.11.2026 10:00, Kith пишет:'],
    ['Thunderbird cs', 'Dne 27. 11. 26 v 10:00 Kith napsal(a):'],
    ['Thunderbird nl', 'Op 27-11-2026 om 10:00 schreef Kith:'],
    ['Thunderbird hu', '2026. 11. 27. 10:00 keltezéssel, Kith írta:'],
    ['Thunderbird ko', '26. 11. 27. 오전 10:00에 Kith 이(가) 쓴 글:'],
    ['Thunderbird zh', '在 2026/11/27 10:00, Kith 写道:'],
  ];

  it.each(cases)('%s: above the quote', (_, attribution) => {
    expect(extractReply({ text: `Count me in!\n\n${attribution}\n${QUOTED_DIGEST}\n` })).toBe('Count me in!');
  });

  it.each(cases)('%s: inside the quote, as iOS writes it', (_, attribution) => {
    expect(extractReply({ text: `Count me in!\n\n> ${attribution}\n> \n${QUOTED_DIGEST}\n` })).toBe('Count me in!');
  });

  it('Thunderbird HTML: the cite prefix and its blockquote go, whatever the language', () => {
    const html =
      '<p>Bis Sonntag!</p><div class="moz-cite-prefix">Dne 27. 11. 26 v 10:00 Kith napsal(a):<br></div><blockquote type="cite"><p>Hallo</p></blockquote>';
    expect(extractReply({ html })).toBe('Bis Sonntag!');
    // A bottom-posted answer under Thunderbird's quote stays, the quote does not.
    const bottom =
      '<div class="moz-cite-prefix">ⴰⵙⵙ 27/11/2026:<br></div><blockquote type="cite"><p>Hallo</p></blockquote><p>Bis Sonntag!</p>';
    expect(extractReply({ html: bottom })).toBe('Bis Sonntag!');
    // A cite prefix over an unquoted copy (a forward written inline) still ends the reply.
    const inline = '<p>FYI</p><div class="moz-cite-prefix">Am 27.11.26 um 10:00 schrieb Kith:</div><div>Hallo</div>';
    expect(extractReply({ html: inline })).toBe('FYI');
  });
});

describe('extractReply: signatures', () => {
  it('cuts at the "-- " delimiter, not at a "--" Markdown underline or a dash in the text', () => {
    expect(extractReply({ text: 'See you there\n\n-- \nAnn Smith\nhttps://ann.example' })).toBe('See you there');
    expect(extractReply({ text: 'Plan\n--\n\nBring food -- lots of it' })).toBe('Plan\n--\n\nBring food -- lots of it');
  });

  it('cuts a signature above the quote, and the quote with it', () => {
    const text = `Great!\n\n-- \nAnn\n\nOn Fri, Nov 27, 2026 at 10:00 AM ${KITH} wrote:\n${QUOTED_DIGEST}`;
    expect(extractReply({ text })).toBe('Great!');
  });

  it('drops the signature containers of Gmail, Thunderbird and Outlook in HTML', () => {
    expect(
      extractReply({
        html: '<div>Yes!</div><br clear="all"><span class="gmail_signature_prefix">-- </span><br><div class="gmail_signature" data-smartmail="gmail_signature">Ann<br>555-0100</div>',
      }),
    ).toBe('Yes!');
    expect(extractReply({ html: '<p>Yes!</p><pre class="moz-signature" cols="72">-- \nAnn</pre>' })).toBe('Yes!');
    expect(extractReply({ html: '<div>Yes!</div><div id="Signature"><p>Ann Smith</p></div>' })).toBe('Yes!');
  });

  it('keeps a sentence that starts like a footer', () => {
    const text = 'Sent from my iPhone by mistake, then Ben sent the real list:\n- bread\n- cheese';
    expect(extractReply({ text })).toBe(text);
  });

  it('cuts the footers of Outlook mobile and Mail for Windows', () => {
    expect(extractReply({ text: 'Yes\n\nGet Outlook for Android' })).toBe('Yes');
    // Outlook mobile links its footer: "<url>" in the text part, a link in the HTML part.
    expect(extractReply({ text: 'Yes\r\n\r\nGet Outlook for iOS<https://aka.ms/o0ukef>\r\n' })).toBe('Yes');
    expect(
      extractReply({
        html: '<div>Yes</div><div><br></div><div>Get <a href="https://aka.ms/o0ukef">Outlook for iOS</a></div>',
      }),
    ).toBe('Yes');
    expect(
      extractReply({
        text: 'Ja\n\nGesendet von Mail für Windows\n\nVon: Kith\nGesendet: Freitag\nAn: Jonas\nBetreff: x',
      }),
    ).toBe('Ja');
  });
});

describe('extractReply: HTML-only mails', () => {
  it('writes paragraphs, line breaks, lists and links as text, without entities, scripts or styles', () => {
    const html = [
      '<html><head><title>Re: news</title><style>p { color: red }</style><script>alert(1)</script></head><body>',
      '<p>Hello &amp; thanks&nbsp;&#8212; see below.</p>',
      '<p>First line<br>second line</p>',
      '<ul><li>bread</li><li>cheese<ul><li>brie</li></ul></li></ul>',
      '<ol><li>one</li></ol>',
      '<div>Map: <a href="https://maps.example/x">the park</a>, <a href="https://kith.example/">https://kith.example/</a>,',
      ' <a href="mailto:ann@example.org">ann@example.org</a>, <a href="#top">top</a></div>',
      '</body></html>',
    ].join('');
    expect(extractReply({ html })).toBe(
      [
        'Hello & thanks — see below.',
        '',
        'First line',
        'second line',
        '',
        '- bread',
        '- cheese',
        '  - brie',
        '',
        '- one',
        '',
        'Map: the park (https://maps.example/x), https://kith.example/, ann@example.org, top',
      ].join('\n'),
    );
  });

  it("cuts at Outlook's history markers: appendonsend, divRplyFwdMsg, the border-top header block", () => {
    expect(
      extractReply({
        html: '<div>Yes</div><div id="appendonsend"></div><hr><div id="divRplyFwdMsg"><b>From:</b> Kith</div><div>Hello</div>',
      }),
    ).toBe('Yes');
    expect(
      extractReply({
        html: '<div>Yes</div><hr><div id="divRplyFwdMsg" dir="ltr"><b>From:</b> Kith</div><div>Hello</div>',
      }),
    ).toBe('Yes');
    expect(
      extractReply({
        html: '<p class="MsoNormal">Yes<o:p></o:p></p><p class="MsoNormal">Dave<o:p></o:p></p><div style="border:none;border-top:solid #E1E1E1 1.0pt;padding:3.0pt 0cm 0cm 0cm"><p class="MsoNormal"><b>From:</b> Kith</p></div><p>Hello</p>',
      }),
    ).toBe('Yes\nDave');
  });

  it('drops Apple Mail quotes, keeping an answer written below them', () => {
    const quote = `<blockquote type="cite">On Nov 27, 2026, at 10:00, ${KITH.replace('<', '&lt;').replace('>', '&gt;')} wrote:<br><br></blockquote></div><blockquote type="cite"><div>Hello Ann</div></blockquote>`;
    expect(extractReply({ html: `<div>Above</div><div><br>${quote}` })).toBe('Above');
    expect(extractReply({ html: `<div><br>${quote}<div>Below</div>` })).toBe('Below');
  });

  it("writes Outlook's list paragraphs as list items, without the bullet Outlook types", () => {
    const item = (text: string, position: string) =>
      `<p class="MsoListParagraph${position}" style="text-indent:-.25in;mso-list:l0 level1 lfo1"><![if !supportLists]><span style="font-family:Symbol"><span style="mso-list:Ignore">·<span style="font:7.0pt &quot;Times New Roman&quot;">&nbsp;&nbsp;&nbsp;&nbsp;&nbsp;&nbsp;&nbsp;</span></span></span><![endif]>${text}<o:p></o:p></p>`;
    const html = `<p class="MsoNormal">I bring:<o:p></o:p></p>${item('bread', 'CxSpFirst')}${item('cheese', 'CxSpLast')}<p class="MsoNormal">Dave<o:p></o:p></p>`;
    expect(extractReply({ html })).toBe('I bring:\n- bread\n- cheese\nDave');
  });

  it("keeps text indented with Gmail's indent button (a borderless blockquote)", () => {
    const html =
      '<div dir="ltr">The list:<blockquote style="margin:0 0 0 40px;border:none;padding:0px"><div>bread</div><div>cheese</div></blockquote></div>';
    expect(extractReply({ html })).toBe('The list:\nbread\ncheese');
  });

  it('prefers the text part, and falls back to HTML when the text part is empty', () => {
    expect(extractReply({ text: 'From text', html: '<p>From HTML</p>' })).toBe('From text');
    expect(extractReply({ text: ' \r\n', html: '<p>From HTML</p>' })).toBe('From HTML');
  });
});

describe('extractReply: edge cases', () => {
  it('gives an empty string for nothing, only a quote, only a signature', () => {
    expect(extractReply({})).toBe('');
    expect(extractReply({ text: '', html: '' })).toBe('');
    expect(extractReply({ text: `On Fri, Nov 27, 2026 at 10:00 AM ${KITH} wrote:\n${QUOTED_DIGEST}` })).toBe('');
    expect(extractReply({ text: QUOTED_DIGEST })).toBe('');
    expect(extractReply({ text: '-- \nAnn Smith' })).toBe('');
    expect(extractReply({ html: '<div class="gmail_quote"><blockquote>Hi</blockquote></div>' })).toBe('');
  });

  it('keeps the answer of a bottom-poster, below the quote', () => {
    const text = `On Fri, Nov 27, 2026 at 10:00 AM ${KITH} wrote:\n${QUOTED_DIGEST}\n\nSee you Sunday!\nAnn\n`;
    expect(extractReply({ text })).toBe('See you Sunday!\nAnn');
    // iOS writes the attribution inside the quote.
    const ios = `> On Nov 27, 2026, at 10:00, ${KITH} wrote:\n> \n${QUOTED_DIGEST}\n\nSee you Sunday!\n\nSent from my iPhone`;
    expect(extractReply({ text: ios })).toBe('See you Sunday!');
  });

  it('keeps interleaved answers with the quotes they answer, without the attribution and the rest of the quote', () => {
    const text = [
      `On Fri, Nov 27, 2026 at 10:00 AM ${KITH} wrote:`,
      '> * Picnic on Sunday',
      '',
      'Yes, I will come.',
      '',
      '> * Choir on Monday',
      '',
      'Not this time.',
      '',
      '> -- ',
      '> Sent by Kith',
    ].join('\n');
    expect(extractReply({ text })).toBe(
      '> * Picnic on Sunday\n\nYes, I will come.\n\n> * Choir on Monday\n\nNot this time.',
    );
  });

  it('keeps lines of the reply that merely start with "On", and Markdown', () => {
    const reply = [
      'On Sunday I can come at 10:00.',
      'On the way: I wrote to Ben.',
      '',
      '# Plan',
      '',
      '**bold**, _italic_, `code`',
      '',
      '```',
      '> not a quote to drop',
      '```',
      '',
      '1. one',
      '2. two',
    ].join('\n');
    expect(
      extractReply({ text: `${reply}\n\nOn Fri, Nov 27, 2026 at 10:00 AM ${KITH} wrote:\n${QUOTED_DIGEST}` }),
    ).toBe(reply);
  });

  it('keeps interleaved answers in an HTML mail (Apple Mail blockquotes)', () => {
    const html =
      '<div>See below.</div><blockquote type="cite"><div>* Picnic on Sunday</div></blockquote><div>I will come.</div>' +
      '<blockquote type="cite"><div>* Choir on Monday</div></blockquote><div>Not this time.</div>' +
      '<blockquote type="cite"><div>-- </div><div>Sent by Kith</div></blockquote>';
    expect(extractReply({ html })).toBe(
      'See below.\n> * Picnic on Sunday\nI will come.\n> * Choir on Monday\nNot this time.',
    );
  });

  it("drops the text part's placeholders of pictures, which become files", () => {
    const text = `Look!\n\n[image: IMG_4821.jpeg]\n\n[cid:image001.jpg@01DB4A2C.5E6F7A80]\nNice, right?\n\n${QUOTED_DIGEST}`;
    expect(extractReply({ text })).toBe('Look!\n\nNice, right?');
    expect(extractReply({ text: 'See [image: the map] here' })).toBe('See [image: the map] here');
  });

  it('keeps a quote the person wrote in the middle of the reply', () => {
    const text = 'Ben said:\n> bring chairs\nso I will.';
    expect(extractReply({ text })).toBe(text);
  });

  it('cuts at an attribution with an address over an unquoted copy (mail programs that do not quote)', () => {
    const text = `Yes!\n\nOn Friday, November 27, 2026, 10:00:00 AM GMT+1, ${KITH} wrote:\n\nHello Ann,\nHere is what is new.`;
    expect(extractReply({ text })).toBe('Yes!');
  });

  it('ignores the attribution mark of the HTML conversion when a text part holds it', () => {
    expect(extractReply({ text: 'a\n\uE000\n> b' })).toBe('a');
  });
});

describe('extractReply: hostile input of 5 MB', () => {
  const MB5 = 5 * 1024 * 1024;
  const LINK = ' (https://kith.example/)';

  // One test per input, so that each has the whole test timeout on a busy machine.
  const cases: [string, { text?: string; html?: string }, (result: string) => void][] = [
    ['one 5 MB line', { text: `Hi ${'a'.repeat(MB5)}` }, (r) => expect(r).toHaveLength(MB5 + 3)],
    [
      'attribution-like lines over unquoted text',
      { text: `Hi\n${'On 1 2 3 wrote:\n'.repeat(MB5 / 16)}` },
      (r) => expect(r).toHaveLength(3 + (MB5 / 16 - 1) * 16 - 1),
    ],
    ['header-like lines', { text: `Hi\n${'From: a\n'.repeat(MB5 / 8)}` }, (r) => expect(r).toHaveLength(3 + MB5 - 1)],
    ['a quote that never ends', { text: `Hi\n${'> q\n\n'.repeat(MB5 / 5)}` }, (r) => expect(r).toBe('Hi')],
    [
      'dashed lines, then a separator',
      { text: `Hi\n${'--x\n'.repeat(MB5 / 4)}-----Original Message-----\n> q` },
      (r) => expect(r).toHaveLength(3 + MB5 - 1),
    ],
    [
      'a 5 MB dashed line (no separator)',
      { text: `Hi\n${'-'.repeat(MB5)}Original Message-----` },
      (r) => expect(r).toHaveLength(3 + MB5 + 21),
    ],
    [
      'blank lines, then a footer padded to 5 MB',
      { text: `${'\n'.repeat(MB5)}Sent from my iPhone${' '.repeat(MB5)}x` },
      (r) => expect(r).toHaveLength(19 + MB5 + 1),
    ],
    ['nested divs', { html: `<p>Hi</p>${'<div>'.repeat(MB5 / 5)}` }, (r) => expect(r).toBe('Hi')],
    ['nested blockquotes', { html: `<p>Hi</p>${'<blockquote>x'.repeat(MB5 / 13)}` }, (r) => expect(r).toBe('Hi')],
    [
      'a million line breaks',
      { html: `<p>Hi</p>${'<br>x'.repeat(MB5 / 5)}` },
      (r) => expect(r).toBe(`Hi\n\n${'x\n'.repeat(MB5 / 5 - 1)}x`),
    ],
    [
      'a 5 MB link',
      { html: `<p>Hi</p><a href="https://${'a'.repeat(MB5)}">x</a>` },
      (r) => expect(r).toBe(`Hi\n\nx (https://${'a'.repeat(MB5)})`),
    ],
    [
      'entities and stray brackets',
      { html: `<p>Hi</p><p>${'&amp;<'.repeat(MB5 / 6)}` },
      (r) => expect(r).toBe(`Hi\n\n${'&<'.repeat(MB5 / 6)}`),
    ],
    [
      // Each closes at the end, after 5 MB of text.
      'links left open, each in its own span',
      { html: `<p>Hi</p>${'<span><a href="https://kith.example/">'.repeat(250)}${'a&amp;'.repeat(MB5 / 6)}` },
      (r) => expect(r).toBe(`Hi\n\n${'a&'.repeat(MB5 / 6)}${LINK.repeat(250)}`),
    ],
  ];

  it.each(cases)('%s', (_, parts, check) => {
    check(extractReply(parts));
  });
});

describe('extractReply: real mails (server/test/fixtures/reply-mails)', () => {
  const dir = path.resolve(import.meta.dirname, '..', '..', '..', 'test', 'fixtures', 'reply-mails');
  const names = readdirSync(dir)
    .filter((file) => file.endsWith('.eml'))
    .map((file) => file.slice(0, -'.eml'.length));

  it('has the fixtures the receiving side tests with', () => {
    expect(names).toEqual(
      expect.arrayContaining([
        'gmail-en',
        'gmail-fr',
        'outlook-en',
        'outlook-ru',
        'apple-mail-en',
        'apple-mail-zh',
        'thunderbird-de',
        'html-only-nl',
      ]),
    );
  });

  it.each(names)('%s', async (name) => {
    const source = readFileSync(path.join(dir, `${name}.eml`), 'utf8')
      .replaceAll('{{FROM}}', 'Ann <ann@example.org>')
      .replaceAll('{{TO}}', 'reply+token@kith.example');
    const expected = JSON.parse(readFileSync(path.join(dir, `${name}.expected.json`), 'utf8')) as {
      text: string;
      photos: number;
    };
    // skipHtmlToText: without it mailparser writes a text part for HTML-only mails itself.
    const mail = await simpleParser(source, { skipHtmlToText: true });
    expect(mail.from?.value[0]?.address).toBe('ann@example.org');
    expect(extractReply({ text: mail.text, html: mail.html === false ? undefined : mail.html })).toBe(expected.text);
    const images = mail.attachments.filter((a) => a.contentType.startsWith('image/'));
    expect(images).toHaveLength(expected.photos);
    // Real JPEG files, decoded from their base64: the start-of-image marker.
    for (const image of images) expect([...image.content.subarray(0, 3)]).toEqual([0xff, 0xd8, 0xff]);
    // The HTML part alone says the same, but where Outlook on the web's text part keeps the
    // signature its HTML part marks (div#Signature).
    if (mail.html !== false && mail.text !== undefined && name !== 'outlook-ru') {
      expect(extractReply({ html: mail.html })).toBe(expected.text);
    }
  });
});
