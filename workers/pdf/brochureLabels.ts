import type { ProjectNature, ProjectStatus } from '../../src/catalogue/project.js';
import type { PdfLanguage } from '../../src/pdf/pdfOptions.js';

/** Every fixed word a brochure prints; the catalogue's own texts (names, overview) are printed as editors wrote them. */
export interface BrochureLabels {
  brochure: string;
  overview: string;
  keyFacts: string;
  priceFrom: string;
  priceOnRequest: string;
  bedrooms: string;
  handover: string;
  status: string;
  developer: string;
  community: string;
  area: string;
  serviceCharges: string;
  downPayment: string;
  propertyTypes: string;
  gallery: string;
  floorPlans: string;
  unitType: string;
  price: string;
  paymentPlans: string;
  milestone: string;
  share: string;
  due: string;
  total: string;
  amenities: string;
  nearby: string;
  location: string;
  coordinates: string;
  mapUnavailable: string;
  mapAttribution: string;
  agent: string;
  yourAgent: string;
  phone: string;
  email: string;
  whatsapp: string;
  disclaimer: string;
  preparedBy: string;
  statuses: Record<ProjectStatus, string>;
  natures: Record<ProjectNature, string>;
  studio: string;
  /** `count` bedrooms; `orMore` for "6+". */
  bedroomCount: (count: number, orMore: boolean) => string;
  km: string;
}

const english: BrochureLabels = {
  brochure: 'Project brochure',
  overview: 'Overview',
  keyFacts: 'Key facts',
  priceFrom: 'Price from',
  priceOnRequest: 'On request',
  bedrooms: 'Bedrooms',
  handover: 'Handover',
  status: 'Status',
  developer: 'Developer',
  community: 'Community',
  area: 'Area',
  serviceCharges: 'Service charges',
  downPayment: 'Down payment',
  propertyTypes: 'Property types',
  gallery: 'Gallery',
  floorPlans: 'Floor plans',
  unitType: 'Unit type',
  price: 'Price',
  paymentPlans: 'Payment plans',
  milestone: 'Milestone',
  share: 'Share',
  due: 'Due',
  total: 'Total',
  amenities: 'Amenities',
  nearby: 'Nearby',
  location: 'Location',
  coordinates: 'Coordinates',
  mapUnavailable: 'Map not available',
  mapAttribution: '© OpenStreetMap contributors',
  agent: 'Agent',
  yourAgent: 'Your agent',
  phone: 'Phone',
  email: 'E-mail',
  whatsapp: 'WhatsApp',
  disclaimer:
    'Prices, plans and specifications are indicative, subject to change and availability, and do not form part of an offer or contract.',
  preparedBy: 'Prepared by',
  statuses: { upcoming: 'Upcoming', under_construction: 'Under construction', completed: 'Completed', sold_out: 'Sold out' },
  natures: { off_plan: 'Off-plan', ready: 'Ready' },
  studio: 'Studio',
  bedroomCount: (count, orMore) => (orMore ? `${count}+ Bedrooms` : count === 1 ? '1 Bedroom' : `${count} Bedrooms`),
  km: 'km',
};

const arabic: BrochureLabels = {
  brochure: 'كتيّب المشروع',
  overview: 'نظرة عامة',
  keyFacts: 'معلومات أساسية',
  priceFrom: 'الأسعار تبدأ من',
  priceOnRequest: 'عند الطلب',
  bedrooms: 'غرف النوم',
  handover: 'التسليم',
  status: 'الحالة',
  developer: 'المطوّر',
  community: 'المجتمع',
  area: 'المساحة',
  serviceCharges: 'رسوم الخدمات',
  downPayment: 'الدفعة الأولى',
  propertyTypes: 'أنواع العقارات',
  gallery: 'معرض الصور',
  floorPlans: 'المخططات',
  unitType: 'نوع الوحدة',
  price: 'السعر',
  paymentPlans: 'خطط الدفع',
  milestone: 'المرحلة',
  share: 'النسبة',
  due: 'الاستحقاق',
  total: 'المجموع',
  amenities: 'المرافق',
  nearby: 'بالقرب من المشروع',
  location: 'الموقع',
  coordinates: 'الإحداثيات',
  mapUnavailable: 'الخريطة غير متاحة',
  mapAttribution: '© OpenStreetMap contributors',
  agent: 'الوكيل',
  yourAgent: 'وكيلك العقاري',
  phone: 'الهاتف',
  email: 'البريد الإلكتروني',
  whatsapp: 'واتساب',
  disclaimer: 'الأسعار والمخططات والمواصفات إرشادية وقابلة للتغيير وحسب التوفر، ولا تشكّل جزءاً من أي عرض أو عقد.',
  preparedBy: 'إعداد',
  statuses: { upcoming: 'قريباً', under_construction: 'قيد الإنشاء', completed: 'مكتمل', sold_out: 'مباع بالكامل' },
  natures: { off_plan: 'على الخارطة', ready: 'جاهز' },
  studio: 'استوديو',
  bedroomCount: (count, orMore) => {
    if (orMore) return `${count}+ غرف نوم`;
    if (count === 1) return 'غرفة نوم واحدة';
    if (count === 2) return 'غرفتا نوم';
    return count <= 10 ? `${count} غرف نوم` : `${count} غرفة نوم`;
  },
  km: 'كم',
};

export const BROCHURE_LABELS: Record<PdfLanguage, BrochureLabels> = { en: english, ar: arabic };

/** The locale prices, dates and numbers are formatted in; Arabic keeps Latin digits, as Gulf brochures print them. */
export const BROCHURE_LOCALES: Record<PdfLanguage, string> = { en: 'en-GB', ar: 'ar-AE-u-nu-latn' };
