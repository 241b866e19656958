/**
 * Word material for the generated data: people's names, group names, hashtags and message texts in
 * English, French, German, Spanish, Portuguese and Russian, with the accents people type.
 *
 * Word choice follows Zipf's law over each language's vocabulary: a head of real everyday words
 * (roughly in frequency order) followed by a long tail of made-up words built from the language's
 * syllables. The head gives very common and mid-frequency search terms, the tail gives rare ones
 * (a word seen in a few dozen messages out of 100,000), which a hand-written list alone cannot.
 */
import { Random, WeightedPicker, zipfWeights } from './prng.ts';

export const LANGS = ['en', 'fr', 'de', 'es', 'pt', 'ru'] as const;
export type Lang = (typeof LANGS)[number];

/** Share of users (and so of messages) writing in each language. */
export const LANG_WEIGHTS: Record<Lang, number> = { en: 0.34, fr: 0.22, de: 0.15, es: 0.12, pt: 0.11, ru: 0.06 };

const split = (text: string): string[] => text.trim().split(/\s+/u);

/** Everyday words, most frequent first. */
const HEAD: Record<Lang, string[]> = {
  en: split(`
    the and to a of in is it you that we for on was with this be have are at but not so all just they my
    our from what like can will one out time about up today get when there great good really more some she
    he day love see new had if were would know been how now back home go going kids family little here still
    first next week much last weekend thanks photos fun dinner happy beautiful thank morning night school
    house look think birthday year well made lovely garden summer weather trip walk beach lunch friends
    together everyone coffee cake game soon later tomorrow yesterday evening nice picture music book dog cat
    baby grandma grandpa holiday Christmas party train car city park mountain river snow rain sunny cold warm
    recipe bread cheese wine tea village church football match team practice concert movie story news doctor
    work office meeting homework teacher class bike ride swim lake forest flowers roses autumn winter spring
    breakfast picnic wedding anniversary congratulations remember wonderful amazing tired finally maybe sure
    already everything nothing someone always never again enough quiet busy café naïve fiancée déjà-vu
    neighbours cousins uncle auntie grandchildren puppy kitten pancakes strawberries blueberries apples pie
    soup barbecue camping tent sunset sunrise island harbour lighthouse museum castle bridge market festival
    fireworks pumpkin costume sledge snowman skating choir piano guitar drawing painting knitting
  `),
  fr: split(`
    le la de et les des un une à est en pour pas que qui on nous il elle dans avec au ce c'est sur mais très
    plus du tout bien était été fait sont aussi mon ma mes notre nos aujourd'hui demain hier soir matin
    journée semaine week-end enfants famille maison jardin photos vacances anniversaire gâteau repas dîner
    déjeuner petit grand belle beau joyeux merci bravo bisous école vélo plage montagne forêt rivière neige
    pluie soleil chaud froid hiver printemps automne fête Noël réveillon cadeau chanson musique livre chien
    chat bébé mamie papi voyage train voiture ville village église marché fromage pain vin café thé recette
    pâtes crêpes tarte fraises cerises pommes randonnée piscine lac fleurs roses grand-mère grand-père
    cousins cousine oncle tante mariage baptême souvenirs premier dernière première encore déjà toujours
    jamais peut-être vraiment génial magnifique superbe fatigué heureux content ensemble là-bas ici où quand
    comment pourquoi après avant pendant chez même être avoir aller venir voir faire manger jouer partir
    arriver dormir nager cuisiner goûter apéro galette château phare île coucher lever brioche confiture
    feu d'artifice citrouille déguisement luge bonhomme patinoire chorale guitare dessin peinture tricot
    quartier voisins mairie boulangerie fromagerie potager récolte vendanges cidre moules huîtres
  `),
  de: split(`
    der die und das ist ich nicht wir es ein eine zu mit den auf für sich im dem auch war noch so schon aber
    heute morgen gestern Abend Woche Wochenende Kinder Familie Haus Garten Fotos Urlaub Geburtstag Kuchen
    Essen schön gut sehr viel toll super Danke Grüße liebe Schule Fahrrad Strand Berge Wald Fluss Schnee
    Regen Sonne warm kalt Sommer Winter Frühling Herbst Fest Weihnachten Geschenk Lied Musik Buch Hund Katze
    Baby Oma Opa Reise Zug Auto Stadt Dorf Kirche Markt Käse Brot Wein Kaffee Tee Rezept Spaziergang
    Schwimmbad See Blumen Rosen Hochzeit Erinnerungen endlich wieder immer nie vielleicht wirklich wunderbar
    müde glücklich zusammen dort hier wann warum nach vor während bei über größer Tür Brötchen Frühstück
    Grillen Äpfel Straße Mädchen Jungen Fußball Spiel Mannschaft Tor Übung Konzert Film Geschichte
    Nachrichten Arzt Arbeit Büro Ausflug gemütlich Feier Überraschung Glückwunsch fröhlich Nachbarn Vetter
    Kusine Onkel Tante Enkel Welpe Pfannkuchen Erdbeeren Heidelbeeren Suppe Zelt Sonnenuntergang Insel
    Leuchtturm Museum Schloss Brücke Feuerwerk Kürbis Kostüm Schlitten Schneemann Eislaufen Chor Klavier
    Gitarre Zeichnung Stricken Ernte Weinlese Bäckerei Rathaus Spielplatz Wanderung Hütte Gipfel
  `),
  es: split(`
    de la que el en y a los se del las un por con no una para es muy pero más todo hoy mañana ayer noche
    tarde semana fin niños familia casa jardín fotos vacaciones cumpleaños pastel comida cena almuerzo
    desayuno bonito bonita feliz gracias abrazos besos escuela bicicleta playa montaña bosque río nieve
    lluvia sol calor frío verano invierno primavera otoño fiesta Navidad regalo canción música libro perro
    gato bebé abuela abuelo viaje tren coche ciudad pueblo iglesia mercado queso pan vino café té receta
    paseo piscina lago flores rosas boda recuerdos primero último todavía siempre nunca quizás realmente
    maravilloso increíble cansado contentos juntos allí aquí cuándo cómo después antes durante también así
    está están fue hemos tenemos vamos mamá papá hermano hermana tío tía primos fútbol partido equipo
    película historia médico trabajo oficina excursión corazón año años niña niño vecinos sobrinos nietos
    cachorro tortilla paella churros chocolate fresas manzanas sopa asado acampada atardecer isla faro museo
    castillo puente feria fuegos calabaza disfraz trineo muñeco patinaje coro piano guitarra dibujo pintura
    cosecha vendimia panadería ayuntamiento parque caminata cabaña cumbre sobremesa siesta
  `),
  pt: split(`
    de que o a e do da em um para é com não uma os no se na por mais as dos como mas foi ao muito hoje
    amanhã ontem noite tarde semana fim crianças família casa jardim fotos férias aniversário bolo comida
    jantar almoço pequeno-almoço bonito linda feliz obrigado obrigada abraços beijinhos escola bicicleta
    praia montanha floresta rio neve chuva sol calor frio verão inverno primavera outono festa Natal
    presente canção música livro cão gato bebé avó avô viagem comboio carro cidade aldeia igreja mercado
    queijo pão vinho café chá receita passeio piscina lago flores rosas casamento lembranças saudade
    saudades primeiro último ainda sempre nunca talvez realmente maravilhoso incrível cansado juntos ali
    aqui quando depois antes durante também está estão vamos mãe pai irmão irmã tio tia primos futebol jogo
    equipa filme história médico trabalho escritório coração ano anos menina menino vizinhos sobrinhos
    netos cachorrinho bacalhau pastéis natas sardinhas caldo churrasco acampamento pôr-do-sol ilha farol
    museu castelo ponte feira fogo-de-artifício abóbora fantasia trenó boneco patinagem coro piano guitarra
    desenho pintura colheita vindima padaria câmara parque caminhada cabana cume lanche
  `),
  ru: split(`
    и в не на я что мы с это как а все так но он она по у было очень сегодня завтра вчера вечер утро
    неделя выходные дети семья дом сад фото отпуск день рождения торт обед ужин завтрак красиво хорошо
    спасибо поздравляю целую школа велосипед пляж горы лес река снег дождь солнце тепло холодно лето зима
    весна осень праздник подарок песня музыка книга собака кошка малыш бабушка дедушка поездка поезд
    машина город деревня церковь рынок сыр хлеб вино кофе чай рецепт прогулка бассейн озеро цветы свадьба
    воспоминания первый последний ещё уже всегда никогда может правда замечательно устал вместе там здесь
    когда после до тоже ёлка мама папа брат сестра футбол фильм работа друзья счастливы Новый год соседи
    внуки щенок блины пирог клубника черника яблоки суп шашлык палатка закат остров маяк музей замок мост
    ярмарка салют тыква костюм санки снеговик каток хор пианино гитара рисунок вязание урожай пекарня
    парк поход дача вершина
  `),
};

/** Syllable parts of each language, for the long tail of made-up words; `accents` are used sparingly. */
const SYLLABLES: Record<Lang, { onsets: string[]; vowels: string[]; accents: string[]; codas: string[] }> = {
  en: {
    onsets: split('b bl br c ch cl cr d dr f fl fr g gl gr h j k l m n p pl pr r s sh sl sp st t th tr v w y'),
    vowels: split('a e i o u ea ee oo ai ou'),
    accents: split('é ï'),
    codas: split('n r st ck ll nd ng t m sh ld'),
  },
  fr: {
    onsets: split('b bl br c ch cl cr d f fl fr g gr j l m n p pl pr qu r s t tr v'),
    vowels: split('a e i o u ou eau ai oi au ie an on in'),
    accents: split('é è ê à ô î ça ço'),
    codas: split('s t x re ne lle tte sse'),
  },
  de: {
    onsets: split('b br d f fl fr g gr h k kl kr l m n p pf r s sch schw sp st t tr w z zw'),
    vowels: split('a e i o u ei au ie eu'),
    accents: split('ä ö ü äu'),
    codas: split('n r ch cht ng tz rn ß lt nd ck'),
  },
  es: {
    onsets: split('b br c ch d f g gr j l ll m n ñ p pl r s t tr v z'),
    vowels: split('a e i o u ia ue'),
    accents: split('á é í ó ú'),
    codas: split('n s r l'),
  },
  pt: {
    onsets: split('b br c ch d f g gr j l lh m n nh p pr r s t tr v x z'),
    vowels: split('a e i o u ei ou'),
    accents: split('ã õ á é ê ô ão ça'),
    codas: split('s r l m'),
  },
  ru: {
    onsets: split('б в г д ж з к л м н п р с т ф х ц ч ш бр гр кр пр ст тр сл'),
    vowels: split('а е и о у ы ю я'),
    accents: split('ё э ой ей'),
    codas: split('й н к р с т л ть в'),
  },
};

/** Made-up words per language after the real ones: enough tail for "rare" terms at full scale. */
const TAIL_WORDS = 4000;
/** Zipf exponent of word choice; ~1 is natural language. */
const WORD_EXPONENT = 1.2;

/** One language's vocabulary with its Zipf sampler. */
export class Vocabulary {
  readonly words: string[];
  private readonly picker: WeightedPicker;

  constructor(words: string[]) {
    this.words = words;
    this.picker = new WeightedPicker(zipfWeights(words.length, WORD_EXPONENT));
  }

  word(rng: Random): string {
    return this.words[this.picker.pick(rng)] as string;
  }
}

function madeUpWords(rng: Random, lang: Lang, taken: Set<string>, count: number): string[] {
  const { onsets, vowels, accents, codas } = SYLLABLES[lang];
  const out: string[] = [];
  while (out.length < count) {
    // Two syllables mostly, sometimes three; at most one accented vowel; a closing consonant often.
    const syllables = rng.chance(0.7) ? 2 : 3;
    let accented = false;
    let word = '';
    for (let i = 0; i < syllables; i += 1) {
      const accent: boolean = !accented && rng.chance(0.2);
      accented ||= accent;
      word += rng.pick(onsets) + rng.pick(accent ? accents : vowels);
    }
    if (rng.chance(0.6)) word += rng.pick(codas);
    const key = word.toLowerCase();
    if (taken.has(key)) continue;
    taken.add(key);
    out.push(word);
  }
  return out;
}

/** The vocabularies of every language; the tail is drawn from its own stream so it is fixed per seed. */
export function buildVocabularies(seed: number): Record<Lang, Vocabulary> {
  const rng = new Random(seed, 'vocabulary');
  const result = {} as Record<Lang, Vocabulary>;
  for (const lang of LANGS) {
    const head = [...new Set(HEAD[lang])];
    const taken = new Set(head.map((w) => w.toLowerCase()));
    result[lang] = new Vocabulary([...head, ...madeUpWords(rng, lang, taken, TAIL_WORDS)]);
  }
  return result;
}

// ---------------------------------------------------------------------------------------------
// Hashtags

const TAG_TOPICS = split(`
  famille family familie família семья vacances holidays urlaub vacaciones férias noël christmas
  weihnachten navidad natal anniversaire birthday geburtstag cumpleaños aniversário recette recipe rezept
  receta receita jardin garden garten jardín jardim randonnée hiking wandern senderismo caminhada plage
  beach strand playa praia montagne mountains berge montaña montanha photo foto fotografie football
  fußball fútbol futebol musique music musik música école school schule escuela escola été summer sommer
  verano verão hiver winter invierno inverno bébé baby bebé mariage wedding hochzeit boda casamento
  voyage travel reise viaje viagem cuisine cooking kochen cocina cozinha chat cat katze gato chien dog
  hund perro cão fête party feier fiesta festa souvenirs memories erinnerungen recuerdos lembranças
  rentrée backtoschool ostern pâques pascua páscoa thanksgiving halloween дача праздник
`);

/** About 200 hashtags: topics, and the most used of them with a year, as families tag them. */
export function buildHashtags(): string[] {
  const topics = [...new Set(TAG_TOPICS)];
  const withYears = topics.slice(0, 200 - topics.length).map((t, i) => `${t}${2024 + (i % 3)}`);
  return [...topics, ...withYears];
}

// ---------------------------------------------------------------------------------------------
// People and groups

/** First names by the language their bearers write in; `en` also holds names from elsewhere. */
const FIRST_NAMES: Record<Lang, string[]> = {
  en: split(`
    Emma Olivia Amelia Jack Harry Oliver Grace Chloe Zoë Renée Noah Liam Ava Mia Ethan Lucas Isla Freya Ellie
    Charlotte George Arthur Daisy Phoebe Søren Åsa Øystein Ingrid Łukasz Małgorzata Zofia Wojciech Tomáš Jiří
    Kateřina Ayşe Çağla Elif Giulia Niccolò Siobhán Seán Bríd Zoltán Ágnes
  `),
  fr: split(`
    Zoé Chloé Léa Hélène Jérôme François Gaëlle Anaïs Noël Loïc Élodie Céline Amélie Benoît Clément Mathéo
    Théo Raphaël Maëlle Inès Josée Aurélien Cécile Frédéric Stéphane Hervé Océane Ophélie Joël Agnès Thérèse
  `),
  de: split(`
    Jürgen Jörg Günther Björn Käthe Lukas Jonas Lena Anna Mia Sören Bärbel Ute Uwe Heinz Klaus Ludwig Mattis
    Jan Fritz Hannah Greta Lotte Maximilian Ömer Wiebke Dörte Jörn
  `),
  es: split(`
    José María Sofía Lucía Martín Ramón Iñaki Begoña Íñigo Álvaro Adrián Andrés Jesús Inés Mónica Raúl Sergio
    Valentina Héctor Óscar Nuria Rocío Ángel Pilar Nicolás Ximena
  `),
  pt: split(`
    João Conceição Sebastião Inês Gonçalo Márcia Tomás Vitória Luísa Simão Catarina Beatriz Afonso Duarte
    Lourenço Leonor Matilde Sônia Antônio Fátima Estêvão Lúcia
  `),
  ru: split(
    'Иван Ольга Дмитрий Наталья Алексей Татьяна Сергей Анастасия Мария Михаил Екатерина Андрей Юлия Фёдор Алёна',
  ),
};

const SURNAMES: Record<Lang, string[]> = {
  en: split(`
    Smith Jones Taylor Brown Wilson Evans Thomas Johnson Roberts Walker Wright Robinson Thompson White Hughes
    Edwards Green Hall Wood Harris O'Brien Murphy Sørensen Ødegaard Åberg Kowalski Wiśniewski Dvořák Novák
    Yılmaz Öztürk Rossi Bianchi Ó_Súilleabháin
  `).map((s) => s.replace('_', ' ')),
  fr: split(`
    Martin Bernard Dubois Thomas Robert Richard Petit Durand Leroy Moreau Simon Laurent Lefèvre Michel
    Fontaine Chevalier Rousseau Bénard Gérard Lemaître Côté Bélanger Hébert Dupré
  `),
  de: split(`
    Müller Schmidt Schneider Fischer Weber Meyer Wagner Becker Schulz Hoffmann Schäfer Koch Bauer Richter
    Klein Wolf Schröder Neumann Schwarz Zimmermann Krüger Köhler Weiß Groß Jäger Völler
  `),
  es: split(`
    García Rodríguez González Fernández López Martínez Sánchez Pérez Gómez Jiménez Ruiz Hernández Díaz Moreno
    Muñoz Álvarez Romero Alonso Gutiérrez Núñez Ibáñez Peña Ordóñez
  `),
  pt: split(`
    Silva Santos Ferreira Pereira Oliveira Costa Rodrigues Martins Sousa Fernandes Gonçalves Gomes Lopes
    Marques Alves Almeida Ribeiro Pinto Carvalho Simões Leitão Magalhães Assunção Brandão
  `),
  ru: split(
    'Иванов Смирнов Кузнецов Попов Васильев Петров Соколов Михайлов Новиков Фёдоров Морозов Волков Лебедев Семёнов',
  ),
};

/** A person's display name in their language: first name and surname. */
export function personName(rng: Random, lang: Lang): string {
  return `${rng.pick(FIRST_NAMES[lang])} ${rng.pick(SURNAMES[lang])}`;
}

const FAMILY_GROUP: Record<Lang, string> = {
  en: 'The {} family',
  fr: 'Famille {}',
  de: 'Familie {}',
  es: 'Familia {}',
  pt: 'Família {}',
  ru: 'Семья {}',
};
const CLUBS = [
  'Club de randonnée',
  'Chorale du jeudi',
  'Fußballverein',
  'Book club',
  'Clube de leitura',
  'Grupo de senderismo',
  'Amis du quartier',
  'Lauftreff',
  'Photo club',
  'Garden club',
  'Coro de la parroquia',
  'Anciens du lycée',
  'Stammtisch',
  'Board games night',
  'Jardins partagés',
  'Turma da praia',
  'Книжный клуб',
];
const PLACES = split(`
  Genève Zürich Köln München Málaga Córdoba São_Paulo Brasília Montréal Québec Besançon Nîmes Düsseldorf
  Lübeck Bogotá León Évora Coimbra Göteborg Kraków Москва Lyon Paris London Porto Lisboa Sevilla Bordeaux
`).map((s) => s.replace('_', ' '));

/** A group name: a family, or a club of some place. */
export function groupName(rng: Random): string {
  if (rng.chance(0.55)) {
    const lang = pickLang(rng);
    return FAMILY_GROUP[lang].replace('{}', rng.pick(SURNAMES[lang]));
  }
  return `${rng.pick(CLUBS)} ${rng.pick(PLACES)}`;
}

const LANG_PICKER = new WeightedPicker(LANGS.map((l) => LANG_WEIGHTS[l]));

/** A language drawn with the population's weights. */
export function pickLang(rng: Random): Lang {
  return LANGS[LANG_PICKER.pick(rng)] as Lang;
}

// ---------------------------------------------------------------------------------------------
// Texts

const EMOJI = ['🎉', '❤️', '😂', '😍', '👍', '🌞', '🎂', '🙏', '😊', '🥳'];

function capitalize(word: string): string {
  const first = word.codePointAt(0);
  if (first === undefined) return word;
  const head = String.fromCodePoint(first);
  return head.toUpperCase() + word.slice(head.length);
}

/**
 * A message text of `wordCount` words in sentences: capitals, commas, end marks and paragraphs, the
 * hashtags at the end, now and then an emoji (which the search tokenizer drops).
 */
export function messageText(rng: Random, vocabulary: Vocabulary, wordCount: number, hashtags: string[]): string {
  const parts: string[] = [];
  let left = wordCount;
  while (left > 0) {
    const length = Math.min(left, rng.between(4, 16));
    left -= length;
    let sentence = capitalize(vocabulary.word(rng));
    for (let i = 1; i < length; i += 1) {
      sentence += (rng.chance(0.07) ? ', ' : ' ') + vocabulary.word(rng);
    }
    const end = rng.next();
    sentence += end < 0.8 ? '.' : end < 0.92 ? '!' : '?';
    if (parts.length > 0) parts.push(rng.chance(0.12) ? '\n\n' : ' ');
    parts.push(sentence);
  }
  if (rng.chance(0.05)) parts.push(` ${rng.pick(EMOJI)}`);
  if (hashtags.length > 0) parts.push(` ${hashtags.map((t) => `#${t}`).join(' ')}`);
  return parts.join('');
}

/** A title of 2–8 words, capitalized, without end mark. */
export function messageTitle(rng: Random, vocabulary: Vocabulary): string {
  const words = [capitalize(vocabulary.word(rng))];
  const length = rng.between(2, 8);
  for (let i = 1; i < length; i += 1) words.push(vocabulary.word(rng));
  return words.join(' ');
}
