
;
xPlaceholder*
dtype0*
shape:ÿÿÿÿÿÿÿÿÿ

yRsqrtx*
T0"ª