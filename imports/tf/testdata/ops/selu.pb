
;
xPlaceholder*
dtype0*
shape:ÿÿÿÿÿÿÿÿÿ

ySelux*
T0"ª