/**
 * The words mail programs write where the quoted history of a reply begins, and the footers they
 * add under what the person wrote, in the 15 languages Kith offers. extract.ts decides where a
 * reply ends; this module only holds the language data, so a missing wording is one line to add.
 *
 * Where the exact localized wording of an app is not known to us, the entry is the natural phrase
 * in that language, marked "natural phrase" (docs/decisions.md, "What a mail reply keeps").
 * Entries are compared case-insensitively, after collapsing whitespace.
 */

/** The markers of one language. */
export interface LanguageMarkers {
  /**
   * The verb of an attribution line ("On <date>, <name> wrote:"): Gmail, Apple Mail and
   * Thunderbird write a date, a name and this verb, in an order that differs by language.
   */
  wrote: readonly string[];
  /** Outlook's quoted header block, field by field ("From:", "Sent:", "To:", "Subject:"…). */
  fields: { from: readonly string[]; other: readonly string[] };
  /** The text of a dashed separator line: "-----Original Message-----", "-------- Forwarded Message --------". */
  separators: readonly string[];
  /** Footers mobile and desktop apps add under the text ("Sent from my iPhone"): a line that starts so ends the reply. */
  footers: readonly string[];
}

/** The markers per language, keyed by Kith's language code. */
export const MARKERS: Readonly<Record<string, LanguageMarkers>> = {
  en_US: {
    // Gmail "On Fri, Nov 27, 2026 at 10:00 AM Kith <…> wrote:", Apple Mail "On Nov 27, 2026, at
    // 10:00, Kith <…> wrote:", Thunderbird "On 11/27/26 10:00 AM, Kith wrote:".
    wrote: ['wrote'],
    // Outlook (desktop, web, new): From/Sent/To/Cc/Subject; Outlook for Mac and Apple Mail: Date.
    fields: { from: ['from'], other: ['sent', 'date', 'to', 'cc', 'subject'] },
    // Outlook "-----Original Message-----", Thunderbird "-------- Original Message --------" and
    // "-------- Forwarded Message --------", Gmail "---------- Forwarded message ---------".
    separators: ['original message', 'forwarded message'],
    // Apple Mail on iOS, Outlook mobile, Mail for Windows, Samsung Email, Yahoo Mail, Proton Mail.
    footers: [
      'sent from my iphone',
      'sent from my ipad',
      'sent from my android',
      'sent from my samsung',
      'sent from my galaxy',
      'get outlook for ios',
      'get outlook for android',
      'sent from outlook',
      'sent from mail for windows',
      'sent from yahoo mail',
      'sent from proton mail',
      'sent with proton mail',
    ],
  },
  cs_CZ: {
    // Gmail "Dne pá 27. 11. 2026 v 10:00 odesílatel Kith <…> napsal:", Thunderbird and Apple Mail
    // "… napsal(a):".
    wrote: ['napsal', 'napsala', 'napsal(a)'],
    // Outlook: Od/Odesláno/Komu/Kopie/Předmět; Apple Mail: Datum.
    fields: { from: ['od'], other: ['odesláno', 'datum', 'komu', 'kopie', 'předmět'] },
    // Outlook "-----Původní zpráva-----", Thunderbird "-------- Přeposlaná zpráva --------".
    separators: ['původní zpráva', 'přeposlaná zpráva'],
    // Apple Mail "Odesláno z iPhonu"; Outlook mobile and Mail for Windows: natural phrase.
    footers: ['odesláno z iphonu', 'odesláno z ipadu', 'stáhněte si outlook pro', 'odesláno z pošty pro windows'],
  },
  de_DE: {
    // Gmail "Am Fr., 27. Nov. 2026 um 10:00 Uhr schrieb Kith <…>:", Apple Mail and Thunderbird
    // "Am 27.11.2026 um 10:00 schrieb Kith:".
    wrote: ['schrieb'],
    // Outlook: Von/Gesendet/An/Cc/Betreff; Apple Mail and Outlook for Mac: Datum.
    fields: { from: ['von'], other: ['gesendet', 'datum', 'an', 'cc', 'betreff'] },
    // Outlook "-----Ursprüngliche Nachricht-----", Thunderbird "-------- Weitergeleitete Nachricht --------".
    separators: ['ursprüngliche nachricht', 'originalnachricht', 'weitergeleitete nachricht'],
    // Apple Mail "Von meinem iPhone gesendet", Outlook mobile "Outlook für Android herunterladen",
    // Mail for Windows "Gesendet von Mail für Windows", Samsung "Von meinem Samsung Galaxy Smartphone gesendet".
    footers: [
      'von meinem iphone gesendet',
      'von meinem ipad gesendet',
      'von meinem samsung',
      'outlook für android herunterladen',
      'outlook für ios',
      'gesendet von mail für windows',
    ],
  },
  es_ES: {
    // Gmail "El vie, 27 nov 2026 a las 10:00, Kith (<…>) escribió:", Thunderbird "El 27/11/26 a las 10:00, Kith escribió:".
    wrote: ['escribió'],
    // Outlook: De/Enviado/Para/CC/Asunto; Apple Mail: Fecha.
    fields: { from: ['de'], other: ['enviado', 'enviado el', 'fecha', 'para', 'cc', 'asunto'] },
    // Outlook "-----Mensaje original-----", Thunderbird "-------- Mensaje reenviado --------".
    separators: ['mensaje original', 'mensaje reenviado'],
    // Apple Mail "Enviado desde mi iPhone", Outlook mobile "Obtener Outlook para Android", Mail for Windows.
    footers: [
      'enviado desde mi iphone',
      'enviado desde mi ipad',
      'obtener outlook para',
      'enviado desde correo para windows',
    ],
  },
  fr_FR: {
    // Gmail "Le ven. 27 nov. 2026 à 10:00, Kith <…> a écrit :", Apple Mail "Le 27 nov. 2026 à 10:00,
    // Kith <…> a écrit :", Thunderbird "Le 27/11/2026 à 10:00, Kith a écrit :".
    wrote: ['a écrit'],
    // Outlook: De/Envoyé/À/Cc/Objet (with a space before the colon); Apple Mail: Date.
    fields: { from: ['de'], other: ['envoyé', 'date', 'à', 'cc', 'objet'] },
    // Outlook "-----Message d'origine-----", Thunderbird "-------- Message transféré --------".
    separators: ["message d'origine", 'message original', 'message transféré'],
    // Apple Mail "Envoyé de mon iPhone", Outlook mobile "Obtenir Outlook pour Android",
    // Mail for Windows "Envoyé à partir de Courrier pour Windows".
    footers: [
      'envoyé de mon iphone',
      'envoyé de mon ipad',
      'obtenir outlook pour',
      'obtenez outlook pour',
      'envoyé à partir de courrier pour windows',
    ],
  },
  hu_HU: {
    // Gmail "Kith <…> ezt írta (időpont: 2026. nov. 27., P, 10:00):", Thunderbird
    // "2026. 11. 27. 10:00 keltezéssel, Kith írta:", Apple Mail "… Kith <…> írta:".
    wrote: ['írta'],
    // Outlook: Feladó/Elküldve/Címzett/Másolatot kap/Tárgy; Apple Mail: Dátum.
    fields: { from: ['feladó'], other: ['elküldve', 'dátum', 'címzett', 'másolatot kap', 'tárgy'] },
    // Outlook "-----Eredeti üzenet-----", Thunderbird "-------- Továbbított üzenet --------".
    separators: ['eredeti üzenet', 'továbbított üzenet'],
    // Natural phrases, in the forms people meet (the exact wording of Apple Mail, Outlook mobile and
    // Mail for Windows in Hungarian is not known to us).
    footers: [
      'az iphone-omról küldve',
      'az ipademről küldve',
      'iphone-ról küldve',
      'küldve az iphone',
      'szerezze be az outlook',
      'a windows posta alkalmazásból küldve',
    ],
  },
  ko_KR: {
    // Gmail "2026년 11월 27일 (금) 오전 10:00, Kith <…>님이 작성:", Apple Mail "2026. 11. 27. 오전 10:00,
    // Kith <…> 작성:", Thunderbird "… Kith 이(가) 쓴 글:".
    wrote: ['작성', '쓴 글'],
    // Outlook: 보낸 사람/보낸 날짜/받는 사람/참조/제목; Apple Mail: 날짜.
    fields: { from: ['보낸 사람'], other: ['보낸 날짜', '날짜', '받는 사람', '참조', '제목'] },
    // Outlook "-----원본 메시지-----", Thunderbird "-------- 전달된 메시지 --------".
    separators: ['원본 메시지', '전달된 메시지'],
    // Apple Mail "iPhone에서 보냄", Outlook mobile "Android용 Outlook 받기", Mail for Windows "Windows용 메일에서 보냄".
    footers: [
      'iphone에서 보냄',
      'ipad에서 보냄',
      'android용 outlook 받기',
      'ios용 outlook 받기',
      'windows용 메일에서 보냄',
    ],
  },
  nb_NO: {
    // Gmail "fre. 27. nov. 2026 kl. 10:00 skrev Kith <…>:", Thunderbird "Den 27.11.2026 10:00, skrev Kith:".
    wrote: ['skrev'],
    // Outlook: Fra/Sendt/Til/Kopi/Emne; Apple Mail: Dato.
    fields: { from: ['fra'], other: ['sendt', 'dato', 'til', 'kopi', 'emne'] },
    // Outlook "-----Opprinnelig melding-----", Thunderbird "-------- Videresendt melding --------".
    separators: ['opprinnelig melding', 'videresendt melding'],
    // Apple Mail "Sendt fra min iPhone", Outlook mobile "Få Outlook for Android", Mail for Windows.
    footers: ['sendt fra min iphone', 'sendt fra min ipad', 'få outlook for', 'sendt fra e-post for windows'],
  },
  nl_NL: {
    // Gmail "Op vr 27 nov 2026 om 10:00 schreef Kith <…>:", Apple Mail "Op 27 nov. 2026 om 10:00
    // heeft Kith <…> het volgende geschreven:", Thunderbird "Op 27-11-2026 om 10:00 schreef Kith:".
    wrote: ['schreef', 'geschreven'],
    // Outlook: Van/Verzonden/Aan/CC/Onderwerp; Apple Mail: Datum.
    fields: { from: ['van'], other: ['verzonden', 'datum', 'aan', 'cc', 'onderwerp'] },
    // Outlook "-----Oorspronkelijk bericht-----", Thunderbird "-------- Doorgestuurd bericht --------".
    separators: ['oorspronkelijk bericht', 'origineel bericht', 'doorgestuurd bericht'],
    // Apple Mail "Verzonden vanaf mijn iPhone", Outlook mobile "Outlook voor Android downloaden",
    // Mail for Windows "Verzonden vanuit Mail voor Windows".
    footers: [
      'verzonden vanaf mijn iphone',
      'verzonden vanaf mijn ipad',
      'outlook voor android downloaden',
      'outlook voor ios',
      'verzonden vanuit mail voor windows',
    ],
  },
  pt_BR: {
    // Gmail "Em sex., 27 de nov. de 2026 às 10:00, Kith <…> escreveu:", Thunderbird "Em 27/11/2026 10:00, Kith escreveu:".
    wrote: ['escreveu'],
    // Outlook: De/Enviado/Para/Cc/Assunto; Apple Mail: Data.
    fields: { from: ['de'], other: ['enviado', 'enviado em', 'data', 'para', 'cc', 'assunto'] },
    // Outlook "-----Mensagem original-----", Thunderbird "-------- Mensagem encaminhada --------".
    separators: ['mensagem original', 'mensagem encaminhada'],
    // Apple Mail "Enviado do meu iPhone", Outlook mobile "Obtenha o Outlook para Android", Mail for Windows.
    footers: [
      'enviado do meu iphone',
      'enviado do meu ipad',
      'obtenha o outlook para',
      'enviado do email para windows',
    ],
  },
  ru_RU: {
    // Gmail writes no verb in Russian ("пт, 27 нояб. 2026 г. в 10:00, Kith <…>:": extract.ts takes
    // a dated line ending in "<address>:"); Thunderbird "27.11.2026 10:00, Kith пишет:", Apple Mail
    // "27 нояб. 2026 г., в 10:00, Kith <…> написал(а):".
    wrote: ['пишет', 'написал', 'написала', 'написал(а)'],
    // Outlook: От/Отправлено/Кому/Копия/Тема; Apple Mail: Дата.
    fields: { from: ['от'], other: ['отправлено', 'дата', 'кому', 'копия', 'тема'] },
    // Outlook "-----Исходное сообщение-----", Thunderbird "-------- Пересылаемое сообщение --------".
    separators: ['исходное сообщение', 'пересылаемое сообщение', 'пересланное сообщение'],
    // Apple Mail "Отправлено с iPhone", Outlook mobile "Загрузите Outlook для Android", Mail for Windows.
    footers: [
      'отправлено с iphone',
      'отправлено с ipad',
      'загрузите outlook для',
      'получите outlook для',
      'отправлено из почты для windows',
    ],
  },
  sk_SK: {
    // Gmail "pi 27. 11. 2026 o 10:00 Kith <…> napísal(a):", Thunderbird "Dňa 27. 11. 2026 o 10:00 Kith napísal(a):".
    wrote: ['napísal', 'napísala', 'napísal(a)'],
    // Outlook: Od/Odoslané/Komu/Kópia/Predmet; Apple Mail: Dátum.
    fields: { from: ['od'], other: ['odoslané', 'dátum', 'komu', 'kópia', 'predmet'] },
    // Outlook "-----Pôvodná správa-----", Thunderbird "-------- Preposlaná správa --------".
    separators: ['pôvodná správa', 'preposlaná správa'],
    // Apple Mail "Odoslané z iPhonu"; Outlook mobile and Mail for Windows: natural phrase.
    footers: ['odoslané z iphonu', 'odoslané z ipadu', 'stiahnite si outlook pre', 'odoslané z pošty pre windows'],
  },
  ta_IN: {
    // Gmail "…, Kith <…> எழுதியது:" (natural phrase: the exact wording of each app is not known to us),
    // "எழுதினார்" as people write it.
    wrote: ['எழுதியது', 'எழுதினார்', 'எழுதினார்கள்'],
    // Outlook in Tamil: natural phrase (அனுப்புநர் = sender, அனுப்பப்பட்டது = sent, பெறுநர் =
    // recipient, பொருள் = subject, தேதி = date).
    fields: { from: ['அனுப்புநர்', 'அனுப்பியவர்'], other: ['அனுப்பப்பட்டது', 'தேதி', 'பெறுநர்', 'நகல்', 'பொருள்'] },
    // Natural phrase: "original message", "forwarded message".
    separators: ['அசல் செய்தி', 'முன்னனுப்பப்பட்ட செய்தி'],
    // Natural phrase: "sent from my iPhone", "get Outlook for Android".
    footers: [
      'எனது iphone இலிருந்து அனுப்பப்பட்டது',
      'எனது iphone-இலிருந்து அனுப்பப்பட்டது',
      'android க்கான outlook ஐப் பெறுக',
      'android-க்கான outlook-ஐப் பெறுக',
    ],
  },
  zgh: {
    // No mail app we know writes Tamazight in Tifinagh: natural phrases throughout. "ⵢⵓⵔⴰ" / "ⵜⵓⵔⴰ"
    // = he / she wrote ("ⴰⵙⵙ 27/11/2026 ⴳ 10:00, ⵢⵓⵔⴰ Kith <…>:").
    wrote: ['ⵢⵓⵔⴰ', 'ⵜⵓⵔⴰ'],
    // ⵙⴳ = from, ⵉⵜⵜⵓⵣⵏ = sent, ⴰⵙⴰⴽⵓⴷ = date, ⵖⵔ = to, ⴰⵙⵏⵜⵍ = subject.
    fields: { from: ['ⵙⴳ'], other: ['ⵉⵜⵜⵓⵣⵏ', 'ⴰⵙⴰⴽⵓⴷ', 'ⵖⵔ', 'ⴰⵙⵏⵜⵍ'] },
    // ⵜⴰⴱⵔⴰⵜ = message (the word Kith's zgh texts use): "original message", "forwarded message".
    separators: ['ⵜⴰⴱⵔⴰⵜ ⵜⴰⵏⵚⵍⵉⵜ', 'ⵜⴰⴱⵔⴰⵜ ⵉⵜⵜⵓⵙⵙⵉⴼⴹⵏ'],
    // "sent from my iPhone".
    footers: ['ⵉⵜⵜⵓⵣⵏ ⵙⴳ iphone', 'ⵜⵜⵓⵣⵏ ⵙⴳ iphone'],
  },
  zh_Hans: {
    // Gmail "Kith <…> 于2026年11月27日周五 10:00写道：", Apple Mail "2026年11月27日 10:00，Kith <…> 写道：",
    // Thunderbird "在 2026/11/27 10:00, Kith 写道:".
    wrote: ['写道'],
    // Outlook: 发件人/发送时间/收件人/抄送/主题; new Outlook and Apple Mail: 日期.
    fields: { from: ['发件人'], other: ['发送时间', '日期', '收件人', '抄送', '主题'] },
    // Outlook "-----原始邮件-----", Thunderbird "-------- 原始消息 --------" / "-------- 转发的消息 --------",
    // Gmail "---------- 转发的邮件 ---------".
    separators: ['原始邮件', '原始消息', '转发的邮件', '转发的消息', '转发邮件信息'],
    // Apple Mail "发自我的iPhone", Outlook mobile "获取 Android 版 Outlook", Mail for Windows "从 Windows 版邮件发送".
    footers: [
      '发自我的iphone',
      '发自我的 iphone',
      '发自我的ipad',
      '从我的 iphone 发送',
      '获取 android 版 outlook',
      '获取 ios 版 outlook',
      '从 windows 版邮件发送',
    ],
  },
};

/** Normalizes a line or a marker for comparison: lower case, runs of whitespace as one space, trimmed. */
export function normalizeMarker(value: string): string {
  return value.toLowerCase().replace(/\s+/g, ' ').trim();
}

function collect(pick: (m: LanguageMarkers) => readonly string[]): string[] {
  return [...new Set(Object.values(MARKERS).flatMap((m) => pick(m).map(normalizeMarker)))];
}

/** Every language's attribution verbs: a reply may quote a mail program set to any language. */
export const WROTE_VERBS = collect((m) => m.wrote);
/** Every language's names of the "From:" field of a quoted header block. */
export const FROM_FIELDS = new Set(collect((m) => m.fields.from));
/** Every language's names of the other fields (sent, date, to, cc, subject). */
export const OTHER_FIELDS = new Set(collect((m) => m.fields.other));
/** Every language's separator texts, without their dashes. */
export const SEPARATORS = new Set(collect((m) => m.separators));
/** Every language's footer beginnings. */
export const FOOTERS = collect((m) => m.footers);
